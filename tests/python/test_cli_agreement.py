"""The module and the qalg command give the same answers: inspect, rank, cost and lower."""
import json

import pytest

import qalg


@pytest.mark.parametrize("args,build", [
    (["complete:2"], lambda: qalg.Algebra.quiver("complete:2")),
    (["complete:3", "--field", "GF(3)"], lambda: qalg.Algebra.quiver("complete:3", "GF(3)")),
    (["complete:2", "--power", "2"], lambda: qalg.Algebra.quiver("complete:2").power(2)),
    (["path:3", "--tensor", "cycle:2"], lambda: qalg.Algebra.quiver("path:3").tensor(qalg.Algebra.quiver("cycle:2"))),
    (["random:6,0.3,5", "--field", "GF(2)"], lambda: qalg.Algebra.quiver("random:6,0.3,5", "GF(2)")),
])
def test_inspect_json_is_identical(qalg_cli, args, build):
    assert build().inspect() == qalg_cli("inspect", *args, "--json")
    assert build().inspect(table=True) == qalg_cli("inspect", *args, "--json", "--table")


def test_inspect_of_a_table_file_and_an_edge_list(qalg_cli, tmp_path):
    edges = tmp_path / "loops.txt"
    edges.write_text("1 1 x\n1 2\n2 2 y\n")
    a = qalg.Algebra.quiver(str(edges))
    assert a.inspect() == qalg_cli("inspect", str(edges), "--json")
    table = tmp_path / "loops.json"
    a.power(2).write_table(str(table))
    b = qalg.Algebra.from_table_file(str(table), field="Q")
    assert b.inspect() == qalg_cli("inspect", "--table-file", str(table), "--json")


def test_rank_report_is_identical(qalg_cli, tmp_path):
    a = qalg.Algebra.from_edges([("1", "1", "x")])
    alg = tmp_path / "sq.json"
    square = qalg.tensor_product_algorithm(qalg.canonical_algorithm(a), qalg.canonical_algorithm(a))
    qalg.write_algorithm(square, str(alg))
    edges = tmp_path / "loop.txt"
    edges.write_text("1 1 x\n")
    cli = qalg_cli("rank", str(edges), "--power", "2", "--algorithm", str(alg), "--json")
    assert qalg.rank_report(a.power(2), str(alg)) == cli["rank"]
    assert cli["algorithm"]["verified"] is True


def test_cost_matches_qalg_cost(qalg_cli):
    cli = qalg_cli("cost", "complete:4", "--shape", "100,24,40", "--widths", "3,5,7,9",
                   "--output-widths", "4,6,10,20", "--schedule", "intervals:7", "--json")
    py = qalg.projection_cost(qalg.Algebra.quiver("complete:4"), 100, 24, 40, widths=[3, 5, 7, 9],
                              output_widths=[4, 6, 10, 20], schedule="intervals:7")
    assert [t["macs_per_row"] for t in cli["types"]] == py["type_macs"]
    assert [t["rows"] for t in cli["types"]] == py["type_rows"]
    assert (cli["forward_macs"], cli["dense_macs"], cli["training_macs"]) == \
        (py["forward_macs"], py["dense_macs"], py["training_macs"])
    assert cli["fraction"] == str(py["fraction"])
    att = qalg.attention_ceilings(qalg.Algebra.quiver("complete:4"))
    assert cli["attention"] == {"score_fraction": str(att["score_fraction"]),
                                "forward_ceiling": str(att["forward"]),
                                "training_ceiling": str(att["training"])}


def test_plan_is_the_file_qalg_lower_writes(qalg_cli, tmp_path):
    out = tmp_path / "plan.json"
    summary = qalg_cli("lower", "complete:3", "--power", "2", "--widths", "16x4,8x5", "--out", str(out), "--json")
    plan = qalg.lower(qalg.Algebra.quiver("complete:3").power(2), "16x4,8x5")
    assert plan == json.loads(out.read_text())
    assert qalg.read_plan(str(out)) == plan
    assert summary["macs_per_row"] == qalg.plan_macs_per_row(plan)
    assert summary["density"] == pytest.approx(qalg.plan_density(plan))
