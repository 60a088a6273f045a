"""Bilinear rank from Python against SPEC §3: bounds, algorithms, exact verification."""
import copy

import pytest

import qalg


def loop():
    """k[x]/(x²): one vertex, one loop (dim 2, rank 3)."""
    return qalg.Algebra.from_edges([("1", "1", "x")])


@pytest.mark.parametrize("q", [2, 3, 4, 5, 6])
def test_complete_graph_rank_is_2q2_minus_q(q):
    a = qalg.Algebra.quiver(f"complete:{q}")
    r = qalg.rank_report(a)
    assert r["best_lower_bound"] == r["explicit_length"] == r["rank_exact"] == 2 * q * q - q
    assert r["explicit_verified"] is True


def test_spec_rank_table():
    # (algebra, dim, t, lower bound, explicit length, exact rank or None) — SPEC §3.
    q2 = qalg.Algebra.quiver("complete:2")
    rows = [(q2, 4, 2, 6, 6, 6),
            (qalg.Algebra.quiver("complete:4"), 16, 4, 28, 28, 28),
            (q2.power(2), 16, 4, 28, 36, None),
            (loop().power(2), 4, 1, 7, 9, None)]  # R = 7 (Yu et al.), not found by qalg's algorithms
    for a, dim, t, bound, explicit, exact in rows:
        r = a.inspect()
        assert (r["dim"], r["t"], r["alder_strassen_bound"], r["explicit_length"], r["rank_exact"]) == \
            (dim, t, bound, explicit, exact), a.description


def test_canonical_algorithm_has_one_term_per_nonzero_and_verifies():
    for spec in ["complete:3", "path:4", "cycle:5", "random:7,0.3,11"]:
        a = qalg.Algebra.quiver(spec)
        alg = qalg.canonical_algorithm(a)
        assert len(alg["terms"]) == a.nnz
        v = qalg.verify_algorithm(a, alg)
        assert v == {"verified": True, "length": a.nnz, "failure": "", "mismatch": None}


def test_tampered_algorithm_fails_with_the_first_mismatch():
    a = qalg.Algebra.quiver("complete:2")
    alg = qalg.canonical_algorithm(a)
    bad = copy.deepcopy(alg)
    bad["terms"][0]["gamma"] = [[bad["terms"][0]["gamma"][0][0], "2"]]  # e_1 e_1 = 2 e_1: wrong
    v = qalg.verify_algorithm(a, bad)
    assert v["verified"] is False and v["length"] == 6
    assert v["mismatch"]["table_value"] == 1 and v["mismatch"]["algorithm_value"] == 2
    dropped = copy.deepcopy(alg)
    dropped["terms"].pop()
    assert qalg.verify_algorithm(a, dropped)["verified"] is False


def test_algorithms_multiply_under_tensor_product():
    a = loop()
    alg = qalg.canonical_algorithm(a)
    assert len(alg["terms"]) == 3  # the canonical length |V| + 2|E| for one loop
    sq = qalg.tensor_product_algorithm(alg, alg)
    assert len(sq["terms"]) == 9
    assert qalg.verify_algorithm(a.power(2), sq)["verified"] is True
    # A verified algorithm handed to the rank report is used when it is not longer.
    assert qalg.rank_report(a.power(2), sq)["explicit_length"] == 9


def test_algorithm_files_round_trip(tmp_path):
    a = qalg.Algebra.quiver("cycle:3")
    path = str(tmp_path / "alg.json")
    qalg.write_algorithm(qalg.canonical_algorithm(a), path)
    assert qalg.read_algorithm(path) == qalg.canonical_algorithm(a)
    assert qalg.verify_algorithm(a, path)["verified"] is True


def test_wrong_dimension_is_bad_input():
    with pytest.raises(qalg.InputError, match="dim"):
        qalg.verify_algorithm(qalg.Algebra.quiver("complete:3"),
                              qalg.canonical_algorithm(qalg.Algebra.quiver("complete:2")))
    with pytest.raises(qalg.InputError):
        qalg.verify_algorithm(qalg.Algebra.quiver("complete:2"), {"format": "qalg-table"})
