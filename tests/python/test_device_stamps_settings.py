"""scripts/device_stamps.sh (the kernels' start stamps on the GPU machine) checks its settings before
it configures or builds anything: a missing or extra argument, a STAMP_TRIALS that is not a positive
integer, a STAMP_ENVS side that is not name:VAR=value[,…] — each refused with exit code 2, a message
naming the setting, and no output folder written. Valid sides pass the check (shown by a later bad
one being the one reported)."""
import os
import subprocess

from conftest import ROOT

SCRIPT = ROOT / "scripts" / "device_stamps.sh"


def run(tmp_path, args=None, **env):
    out_dir = tmp_path / "out"
    e = {k: v for k, v in os.environ.items() if not k.startswith(("STAMP_", "BUILD_STAMPS"))}
    e.update(env)
    argv = [str(out_dir)] if args is None else args
    r = subprocess.run(["bash", str(SCRIPT), *argv], capture_output=True, text=True, env=e, check=False, timeout=60)
    return r.returncode, r.stderr, out_dir.exists()


def test_bad_settings_are_refused_before_anything_is_written(tmp_path):
    cases = [({}, [], "usage: device_stamps.sh OUT_DIR"),
             ({}, [str(tmp_path / "out"), "extra"], "usage: device_stamps.sh OUT_DIR"),
             ({"STAMP_TRIALS": "0"}, None, "STAMP_TRIALS must be a positive integer (got '0')"),
             ({"STAMP_TRIALS": "3x"}, None, "STAMP_TRIALS must be a positive integer (got '3x')"),
             ({"STAMP_ENVS": "stride:QALG_WS_TERM_STRIDE"}, None, "STAMP_ENVS: 'stride:QALG_WS_TERM_STRIDE'"),
             ({"STAMP_ENVS": "base: :QALG_X=1"}, None, "STAMP_ENVS: ':QALG_X=1'")]
    for env, args, message in cases:
        rc, err, wrote = run(tmp_path, args, **env)
        assert rc == 2, (env, args, err)
        assert message in err, (env, args, err)
        assert not wrote, (env, args)


def test_valid_sides_pass_the_check(tmp_path):
    # every side valid but the last: that one must be what is reported, before any build
    rc, err, wrote = run(tmp_path, STAMP_TRIALS="12",
                         STAMP_ENVS="base: stride:QALG_WS_TERM_STRIDE=1 two:QALG_WS_TERM_STRIDE=1,QALG_WS_ORDER=types bad")
    assert rc == 2 and "STAMP_ENVS: 'bad'" in err and not wrote
    assert err.count("device_stamps.sh:") == 1
