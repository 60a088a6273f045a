"""scripts/device_session20.sh checks its settings before it builds anything: an unknown step or
A/B suite or sanitizer tool (SAN_TOOLS), a SAN_EXCLUDE that is not a --kernel-name-exclude filter, a non-positive AB_ROUNDS, an AB_REF_SELF other than 0 or 1, an AB_HEAD_ENVS side that is not name:VAR=value[,…] (or is
named ref), an NCU_RUNS entry that is not tag:shape:variant:mode, a PEER_NCU_SETTING that is not one of
table1's (qQ-int|qQ-cyc) or a PEER_NCU_SHAPE not one of its shapes — each refused with exit code 2,
a message naming the setting, and no output folder written. Valid settings pass the check (shown
by a later bad one being the one reported)."""
import os
import subprocess

import pytest

from conftest import ROOT

SCRIPT = ROOT / "scripts" / "device_session20.sh"


def run(tmp_path, **env):
    out_dir = tmp_path / "out"
    e = {k: v for k, v in os.environ.items() if not k.startswith(("AB_", "NCU_", "STEPS", "SAN_", "PEER_"))}
    e.update(env)
    r = subprocess.run(["bash", str(SCRIPT), str(out_dir)], capture_output=True, text=True, env=e, check=False,
                       timeout=60)
    return r.returncode, r.stderr, out_dir.exists()


def test_bad_settings_are_refused_before_anything_is_written(tmp_path):
    cases = [({"STEPS": "tests bogus"}, "unknown step 'bogus'"),
             ({"STEPS": "ab", "AB_SUITES": "ffn xyz"}, "unknown suite 'xyz' in AB_SUITES"),
             ({"STEPS": "memcheck", "SAN_TOOLS": "memcheck leakcheck"}, "unknown tool 'leakcheck' in SAN_TOOLS"),
             ({"STEPS": "memcheck", "SAN_EXCLUDE": "nvjet"}, "SAN_EXCLUDE: 'nvjet' is not a --kernel-name-exclude filter"),
             ({"STEPS": "memcheck", "SAN_EXCLUDE": "kns=nvjet,"}, "SAN_EXCLUDE: 'kns=nvjet,'"),
             ({"STEPS": "memcheck", "SAN_EXCLUDE": "kns=nvjet kns=gemm"}, "SAN_EXCLUDE: 'kns=nvjet kns=gemm'"),
             ({"STEPS": "ab", "AB_ROUNDS": "0"}, "AB_ROUNDS must be a positive integer"),
             ({"STEPS": "ab", "AB_ROUNDS": "two"}, "AB_ROUNDS must be a positive integer"),
             ({"STEPS": "ab", "AB_REF_SELF": "yes"}, "AB_REF_SELF must be 0 or 1 (got 'yes')"),
             ({"STEPS": "ab", "AB_HEAD_ENVS": "law1:QALG_X"}, "AB_HEAD_ENVS: 'law1:QALG_X'"),
             ({"STEPS": "ab", "AB_HEAD_ENVS": "ref:QALG_X=1"}, "AB_HEAD_ENVS: 'ref:QALG_X=1'"),
             ({"STEPS": "ncu", "NCU_RUNS": "a:b:c"}, "NCU_RUNS: 'a:b:c'"),
             ({"STEPS": "ncu", "NCU_RUNS": "a:b:c:d:e"}, "NCU_RUNS: 'a:b:c:d:e'"),
             ({"STEPS": "ncupeer", "PEER_NCU_SETTING": "q64-int"}, "PEER_NCU_SETTING must be q16-int"),
             ({"STEPS": "ncupeer", "PEER_NCU_SETTING": "q16-int q32-int"}, "(got 'q16-int q32-int')"),
             ({"STEPS": "ncupeer", "PEER_NCU_SHAPE": "DeepSeek-V3"}, "PEER_NCU_SHAPE must be one of table1's")]
    for env, message in cases:
        rc, err, wrote = run(tmp_path, **env)
        assert rc == 2, (env, err)
        assert message in err, (env, err)
        assert not wrote, env


def test_valid_settings_pass_the_check(tmp_path):
    # every setting valid except the last NCU_RUNS entry: that one must be what is reported
    rc, err, wrote = run(tmp_path, STEPS="ab tests table ncu ncupeer memcheck segments", PEER_NCU_SETTING="q32-cyc",
                         PEER_NCU_SHAPE="Qwen3-30B-A3B expert", AB_SUITES="fwd ffn abl wid dec", AB_ROUNDS="1",
                         AB_REF_SELF="1",
                         SAN_TOOLS="memcheck racecheck synccheck initcheck", SAN_EXCLUDE="kns=nvjet,regex=sm90_xmma.*",
                         AB_HEAD_ENVS="law1:QALG_WS_LAW_GRID=1 law0:QALG_WS_LAW_GRID=0,QALG_FFN_PDL=1 head:",
                         NCU_RUNS="skel:Qwen3-32B:fused-wsl64x128:sync-only bad")
    assert rc == 2 and "NCU_RUNS: 'bad'" in err and not wrote
    assert err.count("device_session20.sh:") == 1


def run_script(name, tmp_path, **env):
    out_dir = tmp_path / "out"
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("AB_", "ROUNDS", "SUITE", "SHAPE", "VARIANTS", "T_FILTER"))}
    e.update(env)
    r = subprocess.run(["bash", str(ROOT / "scripts" / name), str(out_dir)], capture_output=True, text=True, env=e,
                       check=False, timeout=60)
    return r.returncode, r.stderr, out_dir.exists()


def test_residue_ab_and_protocol_variants_refuse_bad_settings(tmp_path):
    """(thirty-fifth session) device_residue_ab.sh refuses a non-positive ROUNDS, a missing AB_ENVS or an
    AB_ENVS side that is not name:VAR=value[,…]; device_protocol_variants.sh a SUITE other than peerlost
    or residue: exit 2, the setting named, nothing written."""
    cases = [("device_residue_ab.sh", {"AB_ENVS": "asc:QALG_WS_DESCENDING=0", "ROUNDS": "0"}, "ROUNDS must be a positive integer"),
             ("device_residue_ab.sh", {"AB_ENVS": "asc:QALG_WS_DESCENDING=0 desc:QALG_X"}, "AB_ENVS: 'desc:QALG_X'"),
             ("device_residue_ab.sh", {}, "AB_ENVS must name the settings"),
             ("device_protocol_variants.sh", {"SHAPE": "Qwen3-8B", "VARIANTS": "fused-ws64x128", "SUITE": "table"},
              "SUITE must be peerlost or residue (got 'table')")]
    for name, env, message in cases:
        rc, err, wrote = run_script(name, tmp_path, **env)
        assert rc == 2, (name, env, err)
        assert message in err, (name, env, err)
        assert not wrote, (name, env)


def test_on_card_runs_nothing_on_another_card_or_without_a_gpu(tmp_path):
    # scripts/on_card.sh: bad usage exits 2; a card other than the named one (a stub nvidia-smi on
    # PATH) or no nvidia-smi at all exits 3 without running the command; the named card runs it
    script = str(ROOT / "scripts" / "on_card.sh")
    marker = tmp_path / "ran"
    cmd = ["touch", str(marker)]

    def on(card, *args, nvidia_smi=True):
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir(exist_ok=True)
        stub = bin_dir / "nvidia-smi"
        if nvidia_smi:
            stub.write_text(f"#!/bin/sh\necho '{card}'\n")
            stub.chmod(0o755)
        elif stub.exists():
            stub.unlink()
        env = dict(os.environ, PATH=f"{bin_dir}:/usr/bin:/bin")
        return subprocess.run(["bash", script, *args], capture_output=True, text=True, env=env, check=False, timeout=30)

    r = on("NVIDIA H200", "H200")
    assert r.returncode == 2 and "usage: on_card.sh CARD COMMAND" in r.stderr
    r = on("NVIDIA H200", "H2;00", *cmd)
    assert r.returncode == 2 and "CARD must be" in r.stderr
    r = on("NVIDIA H100 80GB HBM3", "H200", *cmd)
    assert r.returncode == 3 and "not an H200: nothing run" in r.stdout and not marker.exists()
    r = on("", "H200", *cmd, nvidia_smi=False)
    assert r.returncode == 3 and "no GPU named by nvidia-smi" in r.stdout and not marker.exists()
    r = on("NVIDIA H200", "H200", *cmd)
    assert r.returncode == 0 and "card: NVIDIA H200" in r.stdout and marker.exists()


@pytest.mark.parametrize("session,off_card_says", [("session56", "not an H200): racecheck of WsLawFirst"),
                                                   ("session57", "not an H200): racecheck of SanitizerSmall.LawFirstManyItems")])
def test_session_call_checks_its_setting_and_card_before_running(tmp_path, session, off_card_says):
    # results/gpu/history/session5{6,7}/call.sh: a bad OFF_DEADLINE exits 2 before it looks for a card;
    # without nvidia-smi it exits 3; neither writes the output folder
    script = str(ROOT / "results" / "gpu" / "history" / session / "call.sh")
    out_dir = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "OFF_DEADLINE"}
    env["PATH"] = f"{tmp_path}:/usr/bin:/bin"  # no nvidia-smi there
    r = subprocess.run(["bash", script, str(out_dir)], capture_output=True, text=True, check=False, timeout=30,
                       env=dict(env, OFF_DEADLINE="0"))
    assert r.returncode == 2 and "OFF_DEADLINE must be a positive integer (got '0')" in r.stderr
    r = subprocess.run(["bash", script, str(out_dir)], capture_output=True, text=True, check=False, timeout=30, env=env)
    assert r.returncode == 3 and "no GPU named by nvidia-smi" in r.stdout
    assert not out_dir.exists()
    # on an H100 (a stub nvidia-smi) it hands the racecheck to device_session20.sh, whose settings check
    # passes its settings and then refuses the AB_ROUNDS given here: exit 2 before anything is built
    stub = tmp_path / "nvidia-smi"
    stub.write_text("#!/bin/sh\necho 'NVIDIA H100 80GB HBM3'\n")
    stub.chmod(0o755)
    r = subprocess.run(["bash", script, str(out_dir)], capture_output=True, text=True, check=False, timeout=30,
                       env=dict(env, AB_ROUNDS="0"))
    assert r.returncode == 2 and off_card_says in r.stdout, (r.stdout, r.stderr)
    assert "AB_ROUNDS must be a positive integer" in r.stderr and not out_dir.exists()


def test_table_or_offcard_refuses_bad_usage_before_looking_for_a_card(tmp_path):
    # scripts/table_or_offcard.sh: without OUT and WHAT, or with a setting that is not VAR=value, exit 2
    # and nothing written (checked before the card, so here without nvidia-smi too)
    script = str(ROOT / "scripts" / "table_or_offcard.sh")
    out_dir = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "OFF_DEADLINE"}
    env["PATH"] = f"{tmp_path}:/usr/bin:/bin"
    for args, says in [([], "usage: call.sh OUT"), (["", "what"], "usage: call.sh OUT"),
                       ([str(out_dir), "what", "STEPS=memcheck", "rm -rf x"], "'rm -rf x' is not VAR=value"),
                       ([str(out_dir), "what", "lower=1"], "'lower=1' is not VAR=value")]:
        r = subprocess.run(["bash", script, *args], capture_output=True, text=True, check=False, timeout=30, env=env)
        assert r.returncode == 2 and says in r.stderr, (args, r.stdout, r.stderr)
    r = subprocess.run(["bash", script, str(out_dir), "what", "STEPS=memcheck"], capture_output=True, text=True,
                       check=False, timeout=30, env=env)
    assert r.returncode == 3 and "no GPU named by nvidia-smi" in r.stdout
    assert not out_dir.exists()
