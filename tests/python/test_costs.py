"""Cost models and lowering from Python against the closed formulas of SPEC §4."""
import random
from fractions import Fraction

import pytest

import qalg


def Q(q):
    return qalg.Algebra.quiver(f"complete:{q}")


def Q2_power(L):
    return Q(2).power(L)


@pytest.mark.parametrize("q", range(2, 9))
def test_rho_of_complete_graphs(q):
    assert qalg.rho(Q(q)) == Fraction(2 * q - 1, q * q)


@pytest.mark.parametrize("L", [1, 2, 3])
def test_rho_of_Q2_tensor_powers_and_recursive_counts(L):
    a = Q2_power(L)
    assert qalg.rho(a) == Fraction(3, 4) ** L
    s = qalg.block_support(a)
    assert s["q"] == 2 ** L and s["block_products"] == 6 ** L
    assert s["block_products_of_type"] == [3 ** L] * 2 ** L
    assert qalg.type_block_fraction(a, 0) == Fraction(3 ** L, 4 ** L)


@pytest.mark.parametrize("seed", range(10))
def test_per_type_cost_with_unequal_widths(seed):
    rng = random.Random(seed)
    q = rng.randint(2, 6)
    s = [rng.randint(1, 9) for _ in range(q)]
    r = [rng.randint(1, 9) for _ in range(q)]
    K, N, M = sum(s), sum(r), rng.randint(1, 50)
    c = qalg.projection_cost(Q(q), M, K, N, widths=s, output_widths=r)
    d_diag = sum(sj * rj for sj, rj in zip(s, r))
    C = [d_diag + s[i] * (N - r[i]) for i in range(q)]  # SPEC §4
    rows = [sum(1 for p in range(M) if p % q == i) for i in range(q)]
    assert c["type_macs"] == C and c["type_rows"] == rows
    assert c["forward_macs"] == sum(m * ci for m, ci in zip(rows, C))
    assert c["dense_macs"] == M * K * N and c["training_macs"] == 3 * c["forward_macs"]
    assert c["fraction"] == Fraction(c["forward_macs"], M * K * N)
    # The plan computed by the gpu module from the same table gives the same C_i.
    plan = qalg.lower(Q(q), s, r)
    assert qalg.plan_macs_per_row(plan) == C
    types = [p % q for p in range(M)]
    assert qalg.plan_forward_macs(plan, types) == c["forward_macs"]


def test_interval_schedule_of_the_paper():
    q, L, M = 4, 192, 2048
    c = qalg.projection_cost(Q(q), M, 4 * 64, 4 * 64, schedule=f"intervals:{L}")
    rows = [sum(1 for p in range(M) if (p % (q * L)) // L == i) for i in range(q)]
    assert c["type_rows"] == rows


@pytest.mark.parametrize("q,b", [(2, 8), (4, 16), (8, 4), (16, 2)])
def test_square_products_are_quadratic_at_fixed_block_size(q, b):
    n = q * b
    assert qalg.square_product_macs(Q(q), b) == (2 * q * q - q) * b ** 3 == 2 * b * n * n - b * b * n
    assert qalg.plan_square_product_macs(qalg.lower(Q(q), b)) == 2 * b * n * n - b * b * n


def test_attention_ceilings_of_the_paper():
    c4 = qalg.attention_ceilings(Q(4))
    assert (c4["score_fraction"], c4["forward"], c4["training"]) == (Fraction(7, 16), Fraction(32, 23), Fraction(28, 19))
    assert round(float(c4["forward"]), 3) == 1.391 and round(float(c4["training"]), 3) == 1.474
    c22 = qalg.attention_ceilings(Q2_power(2))
    assert (c22["forward"], c22["training"]) == (Fraction(32, 25), Fraction(4, 3))


def test_gated_ffn_and_pilot_model_fractions():
    for q in [2, 4, 8]:
        B, D, F = 8 * q, 4 * q, 12 * q
        ffn = qalg.gated_ffn_training(Q(q), B, D, F)
        assert ffn["dense_training_macs"] == 9 * B * D * F
        assert ffn["training_macs"] == qalg.rho(Q(q)) * 9 * B * D * F
    # (4D² + (9/16)·6D²) / (10D²) = 59/80 with Q_2^{⊗2}, gate + up of width F = 2D.
    D = 64
    assert qalg.decode_projection_fraction(Q2_power(2), D, D, D, 2 * D, 2) == Fraction(59, 80)


def test_crossover_model():
    rho = float(qalg.rho(Q(4)))
    assert qalg.crossover_margin(rho, 0.5, 0.05) == pytest.approx(1 - (rho / 0.5 + 0.05))
    assert qalg.crossover_wins(rho, 0.9, 0.0) and not qalg.crossover_wins(rho, 0.4, 0.0)


def test_plan_is_the_row_action_of_spec_section_4():
    q = 5
    plan = qalg.lower(Q(q), 8)
    assert plan["q"] == q and plan["input_widths"] == [8] * q
    assert qalg.plan_density(plan) == pytest.approx(float(qalg.rho(Q(q))))
    B = qalg.block_support(Q(q))["B"]
    for i in range(q):  # y_i = x_i W_ii, y_j = x_i W_ij + x_j W_jj
        for j in range(q):
            assert sorted(k for k, _ in B[i][j]) == ([i] if i == j else sorted({i, j}))
    assert plan["table_hash"] == Q(q).table_hash()


@pytest.mark.parametrize("algebra,widths,message", [
    (lambda: qalg.Algebra.from_edges([("1", "1")]), 4, "slot"),
    (lambda: qalg.Algebra.quiver("complete:2", "GF(3)"), 4, "GF"),
    (lambda: Q(3), [4, 4], "widths"),
    (lambda: Q(3), "4x2", "widths"),
    (lambda: Q(3), 0, "widths"),
])
def test_lowering_rejects_bad_input(algebra, widths, message):
    with pytest.raises(ValueError, match=message):
        qalg.lower(algebra(), widths)


def test_cost_rejects_bad_widths_and_schedules():
    with pytest.raises(qalg.InputError, match="widths"):
        qalg.projection_cost(Q(2), 4, 8, 8, widths=[3, 4])
    with pytest.raises(qalg.InputError, match="schedule"):
        qalg.projection_cost(Q(2), 4, 8, 8, schedule="intervals:x")
    with pytest.raises(qalg.InputError, match="type"):
        qalg.type_block_fraction(Q(2), 2)


# (thirty-eighth session's audit) Degenerate or non-finite arguments: InputError naming them, not a
# number made from them (K = N = 0 read as "0 % of dense", crossover_wins(nan, ...) as False) and not
# pybind11's RuntimeError for an int beyond 64 bits or std::stoull's IndexError.
@pytest.mark.parametrize("call,message", [
    (lambda: qalg.projection_cost(Q(2), 8, 0, 0), "K = 0"),
    (lambda: qalg.projection_cost(Q(2), 0, 8, 8), "M = 0"),
    (lambda: qalg.projection_cost(Q(2), 8, 8, 8, widths=[2 ** 64, 1]), "widths"),
    (lambda: qalg.projection_cost(Q(2), 8, 8, 8, widths=[-1, 9]), "widths"),
    (lambda: qalg.projection_cost(Q(2), 8, 8, 8, schedule="intervals:99999999999999999999999"), "schedule"),
    (lambda: qalg.crossover_margin(float("nan"), 1, 0), "ρ"),
    (lambda: qalg.crossover_margin(-1, 1, 0), "ρ"),
    (lambda: qalg.crossover_margin(0.5, float("inf"), 0), "η"),
    (lambda: qalg.crossover_wins(0.5, 1, float("nan")), "δ"),
])
def test_costs_refuse_degenerate_and_non_finite_arguments(call, message):
    with pytest.raises(qalg.InputError, match=message):
        call()
