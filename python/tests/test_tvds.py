"""test_tvds.py — the tvds Python package over libtvds.so: cases and overrides, runs and
step-by-step simulations, channel names and units, errors with their file:line, Ctrl-C, CEA,
reduction and import."""
import json
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import tvds


def header_version(repo):
    text = open(os.path.join(repo, "include", "tvds", "tvds.h")).read()
    return ".".join(re.search(r"#define TVDS_VERSION_%s\s+(\d+)" % k, text).group(1)
                    for k in ("MAJOR", "MINOR", "PATCH"))


def test_version_matches_header(repo):
    assert tvds.version() == header_version(repo)
    assert tvds.__version__ == header_version(repo)


def test_case_with_overrides(shoe_case):
    c = tvds.Case(shoe_case, set={"run.t_end": 0.02, "run.out_dt": 1e-3})
    assert c.name == "sdnd100a_lagrange"
    assert c.t_end == 0.02 and c.out_dt == 1e-3 and c.dt == 1e-5
    assert c.method == "subs-b"
    assert c.options["t_end"] == 0.02 and c.option("film_maxit") == 100
    assert c.substructures == {"shoe": 3} and c.contacts == ["base"] and c.probes == ["dy"]
    # The same overrides as a list of strings.
    assert tvds.Case(shoe_case, set=["run.t_end=0.5"]).t_end == 0.5


def test_errors_carry_file_and_line(tmp_path, shoe_case):
    bad = tmp_path / "bad.ini"
    bad.write_text("[run]\nt_end = 1\nbogus_key = 3\n")
    with pytest.raises(tvds.TvdsError) as e:
        tvds.Case(bad)
    assert re.match(r".*bad\.ini:3: ", str(e.value)), str(e.value)
    assert e.value.status < 0 and e.value.status_name.startswith("TVDS_ERR_")
    with pytest.raises(tvds.TvdsError, match=r"--set run\.t_end=-1"):
        tvds.Case(shoe_case, set={"run.t_end": -1})
    with pytest.raises(tvds.TvdsError, match="unknown run option 'nope'"):
        tvds.Case(shoe_case).option("nope")
    # An explicit step above the stable one: refused when the run data are made.
    with pytest.raises(tvds.TvdsError) as e:
        tvds.Case(shoe_case, set={"run.dt": 0.05}).simulation()
    assert e.value.status_name == "TVDS_ERR_UNSTABLE_DT"


def test_run_outputs_as_tables(tmp_path, shoe_case):
    c = tvds.Case(shoe_case, set={"run.t_end": 0.02})
    r = c.run(tmp_path / "out")
    assert r.summary["status"] == "ok" and r.summary["t_end"] == 0.02
    h = r.history
    assert h.names == ["t", "dy"] and h.units == ["s", "m"] and h.unit("dy") == "m"
    assert len(h) == r.summary["steps"]
    ct = r.contacts
    assert "base.lambda_n" in ct and ct.unit("base.lambda_n") == "N"
    assert ct.label("base.v_slide") == "base.v_slide [m/s]"
    # Gravity presses the shoe (m g = 10 N) with the spring's pull: lambda_n >= 0 throughout.
    assert np.all(ct["base.lambda_n"] >= 0) and abs(ct["base.lambda_n"][-1] - 10.0) < 1e-9 * 10


def test_step_by_step_equals_run(tmp_path, shoe_case):
    """tvds_run records every channel of every step (out_dt = 0): stepping from Python gives the
    same numbers bit for bit (one engine, one order of operations)."""
    c = tvds.Case(shoe_case, set={"run.t_end": 0.01})
    r = c.run(tmp_path / "out")
    sim = c.simulation()
    assert sim.time == 0 and sim.steps == 0 and sim.dt == 1e-5
    out = sim.advance(groups=("history", "contacts"))
    assert sim.steps == 1000 and abs(sim.time - 0.01) < 1e-15
    # Both record one row per step, the instant t_n = time - dt that the step completed.
    for g in ("history", "contacts"):
        a, b = out[g], r.table(g)
        assert a.names == b.names and a.units == b.units
        n = min(len(a), len(b))
        assert n >= 1000
        np.testing.assert_array_equal(a.data[:n], b.data[:n])
    s = sim.summary()
    assert s["dt [s]"] == 1e-5 and s["t [s]"] == sim.channels("history")["t"][0]
    e = sim.channels("energy")
    assert e.names[0] == "t" and e.units[0] == "s" and len(e) == 1


def test_read_csv_names_and_units(tmp_path):
    p = tmp_path / "c.csv"
    p.write_text('t [s],C.10001.lambda_n [N],"a,b [m/s]",flag\n0,1.5,nan,1\n1e-3,-2,inf,0\n')
    t = tvds.read_csv(p)
    assert t.names == ["t", "C.10001.lambda_n", "a,b", "flag"]
    assert t.units == ["s", "N", "m/s", ""]
    np.testing.assert_array_equal(t["C.10001.lambda_n"], [1.5, -2])
    assert np.isnan(t["a,b"][0]) and np.isinf(t["a,b"][1])
    # The unit is the last bracket, at the end; other brackets belong to the name.
    assert tvds.split_label("a [x] b [Pa]") == ("a [x] b", "Pa")
    assert tvds.split_label("a [x] b") == ("a [x] b", "")


def test_read_csv_drops_a_cut_last_line(tmp_path):
    # A run killed while writing a block can leave a part of a row (docs/reliability.md).
    p = tmp_path / "h.csv"
    p.write_text("t [s],u [m]\n0,1\n1e-3,2\n2e-3,3.2")
    t = tvds.read_csv(p)
    np.testing.assert_array_equal(t["u"], [1, 2])


INTERRUPT_SCRIPT = r"""
import sys, tvds
c = tvds.Case(sys.argv[1], set={"run.t_end": 300, "run.dt": 1e-5})
print("start", flush=True)
try:
    c.run(sys.argv[2])
except tvds.Interrupted as e:
    print("interrupted:", e.status_name, e, flush=True)
    sys.exit(0)
print("not interrupted", flush=True)
sys.exit(1)
"""


def test_sigint_stops_a_run_cleanly(tmp_path, shoe_case):
    """Ctrl-C during Case.run (a single C call of minutes): the run stops within a fraction of
    a second, the outputs are kept and summary.json says "interrupted"."""
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-c", INTERRUPT_SCRIPT, shoe_case, str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "start"
        deadline = time.time() + 60
        while not (out / "history.csv").exists() and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        t0 = time.time()
        p.send_signal(signal.SIGINT)
        stdout, stderr = p.communicate(timeout=60)
    finally:
        p.kill()  # a run that did not stop is not left behind
        p.wait()
    assert p.returncode == 0, stdout + stderr
    assert time.time() - t0 < 10
    assert "interrupted: TVDS_ERR_INTERRUPTED" in stdout
    s = json.load(open(out / "summary.json"))
    assert s["status"] == "interrupted" and 0 < s["t_reached"] < 300
    h = tvds.read_csv(out / "history.csv")
    assert len(h) >= 1 and h["t"][-1] <= s["t_reached"]


def test_cea_locus_and_windows(bob_case, tmp_path):
    c = tvds.Case(bob_case)
    r = c.cea(positions=5, refine=False, nmodes=6)
    assert r.npos == 5 and r.nbranch == 6
    assert r.s.shape == (5,) and r.freq.shape == (5, 6) and r.re.shape == (5, 6)
    np.testing.assert_allclose(r.s, np.linspace(0, r.s[-1], 5))
    assert r.s[-1] > 0.09  # beam 2's 99 mm edge
    # Branches are tracked by MAC from the first position, where they are in frequency order.
    assert np.all(np.isfinite(r.freq)) and np.all(r.freq > 0) and np.all(np.diff(r.freq[0]) > 0)
    assert np.all(r.resid < 1e-8) and r.anti is None
    assert np.all(r.lambda_n > 0)
    assert set(r.windows) >= {"branch", "s_start", "s_end", "f_peak", "re_max"}
    assert all(len(v) == r.nwin for v in r.windows.values())
    with pytest.raises(tvds.TvdsError, match="unknown CEA option 'bogus'"):
        c.cea(positions=2, bogus=1)
    with pytest.raises(tvds.TvdsError, match="no contact 'nope'"):
        c.cea(contact="nope")


def test_cea_matches_cli(bob_case, tmp_path):
    """The binding's locus is the one `tvds cea` writes (same library, same options)."""
    bin_ = os.environ.get("TVDS_BIN")
    if not bin_:
        pytest.skip("TVDS_BIN not set (make test-python sets it)")
    out = tmp_path / "cea"
    subprocess.run([bin_, "cea", bob_case, "--positions", "4", "--no-refine", "--modes", "5",
                    "-o", str(out)], check=True, capture_output=True)
    loc = tvds.read_csv(out / "locus.csv")
    r = tvds.Case(bob_case).cea(positions=4, refine=False, nmodes=5)
    assert loc.names[:4] == ["position", "branch", "frequency", "real part"]
    assert loc.units[:4] == ["m", "", "Hz", "1/s"]
    f = loc["frequency"].reshape(4, 5)
    # locus.csv holds the shortest decimal text that reads back the same double.
    np.testing.assert_array_equal(f, r.freq)
    np.testing.assert_array_equal(loc["real part"].reshape(4, 5), r.re)


def test_reduce(repo, tmp_path):
    full = os.path.join(repo, "models", "beam_on_beam", "beam2_full")
    out = tvds.reduce(full, "top", tmp_path / "beam2_cb", modes=4, recover="T.y")
    for f in ("M.mtx", "K.mtx", "dofs.txt", "manifest.txt"):
        assert os.path.exists(os.path.join(out, f))
    # 100 top nodes x (ux, uy, rz) ... counted from dofs.txt: boundary DoFs + 4 modes.
    dofs = [l for l in open(os.path.join(out, "dofs.txt")) if l.strip() and l[0] != "#"]
    modal = [l for l in dofs if "mode" in l]
    assert len(modal) == 4
    with pytest.raises(tvds.TvdsError, match="nosuchset"):
        tvds.reduce(full, "nosuchset", tmp_path / "x", modes=4)
    with pytest.raises(tvds.TvdsError, match=r"test_reduce0?/(dofs\.txt|M\.mtx): cannot open"):
        tvds.reduce(tmp_path, "top", tmp_path / "y", modes=4)


def _small_ccx_job(d):
    """A two-node spring-mass CalculiX job written by hand (as tests/check_import.c)."""
    (d / "job.inp").write_text("*NODE, NSET=ALL\n1, 0, 0, 0\n2, 1.0, 0, 0\n3, 2.0, 0.5\n"
                               "*NSET, NSET=PAIR\n2, 3\n"
                               "*STEP\n*FREQUENCY, SOLVER=MATRIXSTORAGE\n*END STEP\n")
    (d / "job.dof").write_text("2.1\n2.2\n3.1\n3.2\n")
    (d / "job.sti").write_text("1 1 2.0e+03\n2 2 1.0e+03\n1 3 -1.0e+03\n3 3 1.0e+03\n"
                               "4 4 5.0e+02\n2 4 -5.0e+02\n")
    (d / "job.mas").write_text("1 1 1.0\n2 2 1.0\n3 3 0.5\n4 4 0.5\n")


def test_import_calculix(tmp_path):
    _small_ccx_job(tmp_path)
    out = tvds.import_model("calculix", tmp_path / "job.inp", tmp_path / "full")
    dofs = [l.split() for l in open(os.path.join(out, "dofs.txt")) if l.strip() and l[0] != "#"]
    assert [(d[0], d[1]) for d in dofs] == [("2", "ux"), ("2", "uy"), ("3", "ux"), ("3", "uy")]
    assert "set PAIR 2 3" in open(os.path.join(out, "sets.txt")).read()
    # Written as the command writes it: committed by its manifest, so that an import over it
    # (here the same job again) replaces the files whole.
    assert os.path.exists(os.path.join(out, "manifest.txt"))
    assert tvds.import_model("calculix", tmp_path / "job.inp", tmp_path / "full") == out
    # A malformed matrix line: the error names the file and its line.
    (tmp_path / "job.sti").write_text("1 1 2.0e+03\n2 two 1.0e+03\n")
    with pytest.raises(tvds.TvdsError, match=r"job\.sti:2: "):
        tvds.import_calculix(tmp_path / "job.inp", tmp_path / "full2")
    with pytest.raises(ValueError):
        tvds.import_model("nastran9", tmp_path / "job.inp", tmp_path / "x")


LOAD_SCRIPT = "import tvds; print(tvds.library_path)"


def test_library_lookup(tmp_path):
    env = dict(os.environ, TVDS_LIBRARY=str(tmp_path / "nope.so"))
    p = subprocess.run([sys.executable, "-c", LOAD_SCRIPT], env=env, capture_output=True,
                       text=True)
    assert p.returncode != 0 and "TVDS_LIBRARY" in p.stderr and "nope.so" in p.stderr


def test_example_script(repo, tmp_path):
    """python/examples/shoe_and_cea.py on a coarse CEA: both figures written as PNG files."""
    pytest.importorskip("matplotlib")
    script = os.path.join(repo, "python", "examples", "shoe_and_cea.py")
    p = subprocess.run([sys.executable, script, "-o", str(tmp_path), "--positions", "3",
                        "--modes", "4", "--max-pos", "3"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "shoe: ok, 13001 steps" in p.stdout
    for name in ("shoe.png", "cea.png"):
        data = (tmp_path / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000
