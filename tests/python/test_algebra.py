"""qalg.Algebra against SPEC §1–2, with expected values computed here from the quiver itself."""
import random
from fractions import Fraction

import pytest

import qalg
from conftest import complete_graph_edges


def graph_algebra_entries(vertices, arrows):
    """The structure constants of Q_G written down from SPEC §1 (vertices first, then arrows)."""
    index = {v: n for n, v in enumerate(vertices)}
    entries = {(n, n, n) for n in range(len(vertices))}
    for a, (s, t) in enumerate(arrows):
        b = len(vertices) + a
        entries.add((index[s], b, b))  # e_s(a) a = a
        entries.add((b, index[t], b))  # a e_t(a) = a
    return sorted((i, j, k, Fraction(1)) for i, j, k in entries)


def random_quiver(rng, n, arrows):
    vertices = [f"v{k}" for k in range(n)]
    edges = [(rng.choice(vertices), rng.choice(vertices)) for _ in range(arrows)]
    return vertices, edges


def random_element(rng, algebra):
    x = {b: Fraction(rng.randint(-3, 3), rng.randint(1, 3)) for b in algebra.basis if rng.random() < 0.6}
    return {b: c for b, c in x.items() if c != 0}


def add(x, y):
    out = dict(x)
    for b, c in y.items():
        out[b] = out.get(b, 0) + c
    return {b: c for b, c in out.items() if c != 0}


@pytest.mark.parametrize("seed", range(12))
def test_graph_algebra_table_is_spec_section_1(seed):
    # Random quivers with loops and parallel arrows: the table is exactly the one of SPEC §1.
    rng = random.Random(seed)
    vertices, edges = random_quiver(rng, rng.randint(1, 6), rng.randint(0, 10))
    a = qalg.Algebra.from_edges(edges, vertices=vertices)
    assert a.dim == len(vertices) + len(edges)
    assert a.nnz == len(vertices) + 2 * len(edges)
    assert a.entries() == graph_algebra_entries(vertices, edges)
    assert a.basis[: len(vertices)] == [f"e_{v}" for v in vertices]


@pytest.mark.parametrize("seed", range(8))
def test_multiplication_is_associative_and_bilinear(seed):
    rng = random.Random(100 + seed)
    vertices, edges = random_quiver(rng, rng.randint(1, 5), rng.randint(1, 8))
    a = qalg.Algebra.from_edges(edges, vertices=vertices)
    x, y, z = (random_element(rng, a) for _ in range(3))
    assert a.multiply(a.multiply(x, y), z) == a.multiply(x, a.multiply(y, z))
    assert a.multiply(add(x, y), z) == add(a.multiply(x, z), a.multiply(y, z))
    # J² = 0: arrows multiply to zero, whatever the quiver.
    arrows = a.basis[len(vertices):]
    for s in arrows:
        for t in arrows:
            assert a.multiply({s: 1}, {t: 1}) == {}


@pytest.mark.parametrize("spec,nv,na", [("complete:2", 2, 2), ("complete:4", 4, 12), ("path:5", 5, 4),
                                        ("cycle:6", 6, 6), ("star:4", 5, 4)])
def test_inspect_reports_the_facts_of_spec_section_1(spec, nv, na):
    a = qalg.Algebra.quiver(spec)
    r = a.inspect()
    assert (r["vertices"], r["arrows"], r["dim"], r["nnz"]) == (nv, na, nv + na, nv + 2 * na)
    assert r["associative"] is True and r["unit_is_vertex_sum"] is True
    assert r["unit"] == {f"e_{v}": "1" for v in range(1, nv + 1)}
    assert (r["radical_dim"], r["radical_squared_zero"], r["quotient_dim"], r["t"]) == (na, True, nv, nv)
    assert r["alder_strassen_bound"] == 2 * (nv + na) - nv == r["rank_exact"]


def test_unit_is_the_identity_of_multiplication():
    a = qalg.Algebra.quiver("random:6,0.4,3")
    unit = {b: Fraction(c) for b, c in a.inspect()["unit"].items()}
    rng = random.Random(7)
    for _ in range(5):
        x = random_element(rng, a)
        assert a.multiply(unit, x) == x == a.multiply(x, unit)


def test_radical_of_loop_algebra_and_its_square():
    # k[x]/(x²): one vertex, one loop; its tensor square has radical of dim 3 and rad³ = 0.
    loop = qalg.Algebra.from_edges([("1", "1", "x")])
    s = loop.structure()
    assert s["radical_basis"] == [{"x": 1}] and s["nilpotency_index"] == 2 and s["t"] == 1
    sq = loop.power(2).structure()
    assert sq["radical_power_dims"] == [3, 1, 0] and sq["nilpotency_index"] == 3 and sq["t"] == 1
    # The radical basis elements are nilpotent in the algebra itself.
    a2 = loop.power(2)
    for r in sq["radical_basis"]:
        assert a2.multiply(a2.multiply(r, r), r) == {}


def test_tensor_product_constants_are_products_of_constants():
    a, b = qalg.Algebra.quiver("path:2"), qalg.Algebra.quiver("cycle:2")
    ab = a.tensor(b)
    assert ab.dim == a.dim * b.dim
    expected = sorted((i * b.dim + i2, j * b.dim + j2, k * b.dim + k2, c * c2)
                      for i, j, k, c in a.entries() for i2, j2, k2, c2 in b.entries())
    assert ab.entries() == expected
    assert a.power(2).table_hash() == a.tensor(a).table_hash()
    assert ab.description == "path:2 ⊗ cycle:2 over Q"


def test_multiplication_table_matches_entries():
    a = qalg.Algebra.quiver("complete:3")
    table = a.multiplication_table()
    from_entries = {}
    for i, j, k, c in a.entries():
        from_entries.setdefault((i, j), {})[a.basis[k]] = c
    for i in range(a.dim):
        for j in range(a.dim):
            assert table[i][j] == from_entries.get((i, j), {})
            assert a.multiply({a.basis[i]: 1}, {a.basis[j]: 1}) == table[i][j]


def test_edges_spec_and_table_round_trip_give_one_table(tmp_path):
    q3 = qalg.Algebra.quiver("complete:3")
    edges = [(str(i + 1), str(j + 1)) for i, j in complete_graph_edges(3)]
    assert qalg.Algebra.from_edges(edges).table_hash() == q3.table_hash()
    assert qalg.Algebra.from_table(q3.table()).entries() == q3.entries()
    path = tmp_path / "q3.json"
    q3.write_table(str(path))
    assert qalg.Algebra.from_table_file(str(path)).table_hash() == q3.table_hash()
    dot = qalg.Algebra.from_dot("digraph { 1 -> 2; 2 -> 1 }")
    assert dot.entries() == qalg.Algebra.quiver("complete:2").entries()


def test_prime_field_reduces_coefficients():
    table = qalg.Algebra.quiver("complete:2").table()
    table["field"] = "GF(3)"
    table["entries"] = [e[:3] + ["4"] for e in table["entries"]]  # 4 ≡ 1 mod 3
    a = qalg.Algebra.from_table(table)
    assert a.field == "GF(3)" and all(c == 1 for *_, c in a.entries())
    assert a.multiply({"e_1": 2}, {"e_1": 2}) == {"e_1": 1}  # 4 ≡ 1


@pytest.mark.parametrize("call,message", [
    (lambda: qalg.Algebra.quiver("complete:0"), "complete:0"),
    (lambda: qalg.Algebra.quiver("nosuchfamily:3"), "nosuchfamily"),
    (lambda: qalg.Algebra.quiver("complete:2", field="GF(4)"), "4"),
    (lambda: qalg.Algebra.from_edges([("a",)]), r"edges\[0\]"),
    (lambda: qalg.Algebra.from_edges([("a b", "c")]), r"edges\[0\]"),
    (lambda: qalg.Algebra.quiver("complete:2").power(0), "power"),
    (lambda: qalg.Algebra.quiver("complete:2").multiply({"e_1": 0.5}, {}), "not exact"),
    (lambda: qalg.Algebra.quiver("complete:2").multiply({"zz": 1}, {}), "zz"),
    (lambda: qalg.Algebra.quiver("complete:2").multiply([1, 2], {}), "dimension 4"),
    (lambda: qalg.Algebra.from_table({"format": "nope"}), "format"),
    (lambda: qalg.Algebra.quiver("complete:2").tensor(qalg.Algebra.quiver("complete:2", "GF(2)")), "field"),
    # (thirty-eighth session's audit: these were RuntimeErrors, or None / NaN vertex names)
    (lambda: qalg.Algebra.from_table(dict(qalg.Algebra.quiver("complete:2").table(), entries=[[0, 0, 0, float("nan")]])), "NaN"),
    (lambda: qalg.Algebra.from_table(dict(qalg.Algebra.quiver("complete:2").table(), dim=float("inf"))), "NaN"),
    (lambda: qalg.Algebra.from_edges([(None, None)]), "not a str"),
    (lambda: qalg.Algebra.from_edges([(float("nan"), "1")]), "not a str"),
    (lambda: qalg.Algebra.quiver("complete:2").multiply({10 ** 30: 1}, {}), "outside the basis"),
    (lambda: qalg.Algebra.quiver("complete:2").multiply({-1: 1}, {}), "outside the basis"),
])
def test_bad_input_raises_input_error_naming_the_fault(call, message):
    with pytest.raises(qalg.InputError, match=message):
        call()
    assert issubclass(qalg.InputError, ValueError)


def test_description_names_the_field_canonically_and_the_radical_free_index_is_one():
    a = qalg.Algebra.quiver("complete:2", field="GF(03)")
    assert a.description == "complete:2 over GF(3)"
    # rad = 0: nilpotency index 1 (rad^1 = 0) on every route (the general one said 0)
    assert qalg.Algebra.quiver("random:3,0,1").structure()["nilpotency_index"] == 1
