"""core.py — cases, runs, step-by-step simulations, CEA, reduction and import over libtvds."""
import ctypes
import json
import os
import signal
import threading

import numpy as np

from . import _lib
from ._lib import lib, enc, Context, TvdsError

GROUPS = ("history", "contacts", "energy")
_ALL_CONTACTS = -2  # TVDS_CEA_ALL_CONTACTS


def version():
    """Version of the loaded library, "MAJOR.MINOR.PATCH"."""
    return lib.tvds_version(None, None, None).decode()


def split_label(label):
    """("C.10001.lambda_n", "N") from "C.10001.lambda_n [N]"; (label, "") without a unit."""
    b = enc(label)
    name = ctypes.create_string_buffer(len(b) + 1)
    unit = ctypes.create_string_buffer(len(b) + 1)
    lib.tvds_label_split(b, name, len(name), unit, len(unit))
    return name.value.decode(), unit.value.decode()


class Table:
    """Columns of numbers with names and units apart: t["lambda_n"] is a column (1-D array),
    t.data the rows x columns array, t.names and t.units the lists, t.unit(name) one unit."""

    def __init__(self, names, units, data):
        self.names = list(names)
        self.units = list(units)
        self.data = np.asarray(data, dtype=float).reshape(-1, len(self.names))
        self._index = {n: i for i, n in enumerate(self.names)}

    def __getitem__(self, key):
        if isinstance(key, str):
            if key not in self._index:
                raise KeyError("no column %r (columns: %s)" % (key, ", ".join(self.names)))
            return self.data[:, self._index[key]]
        return self.data[key]

    def __contains__(self, name):
        return name in self._index

    def __len__(self):
        return self.data.shape[0]

    def unit(self, name):
        return self.units[self._index[name]]

    def label(self, name):
        """"name [unit]" as in the CSV header."""
        u = self.unit(name)
        return "%s [%s]" % (name, u) if u else name

    def __repr__(self):
        return "Table(%d rows x %d columns: %s)" % (len(self), len(self.names),
                                                     ", ".join(self.names[:6]) +
                                                     (", ..." if len(self.names) > 6 else ""))


def read_csv(path):
    """A channel CSV of a run (history.csv, contacts.csv, energy.csv; docs/outputs.md) or a CEA
    table, as a Table: the header's "NAME [UNIT]" labels split into names and units."""
    import csv
    with open(path, newline="") as f:
        text = f.read()
    # A last line without its newline is a row cut by a kill (docs/reliability.md): dropped.
    lines = text.split("\n")
    lines = lines[:-1] if lines else lines
    reader = csv.reader(lines)
    header = next(reader)
    labels = [h.strip() for h in header]
    rows = [r for r in reader if r]
    names, units = zip(*[split_label(h) for h in labels]) if labels else ((), ())
    data = np.array([[float(x) for x in r] for r in rows], dtype=float) if rows else \
        np.zeros((0, len(labels)))
    return Table(names, units, data)


def read_summary(path):
    """summary.json of a run as a dict."""
    with open(path) as f:
        return json.load(f)


def _interruptible(call, flag):
    """Run call() (a C call that watches flag) in a worker thread, so that SIGINT and SIGTERM,
    which Python delivers to the main thread only between bytecodes, set the flag while the C
    code runs; the call then ends cleanly and returns TVDS_ERR_INTERRUPTED."""
    if threading.current_thread() is not threading.main_thread():
        return call()
    out = {}

    def work():
        try:
            out["rc"] = call()
        except BaseException as e:  # pragma: no cover (ctypes calls do not raise)
            out["exc"] = e

    def handler(signum, frame):
        flag.value = signum

    old = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        t = threading.Thread(target=work, name="tvds", daemon=True)
        t.start()
        while t.is_alive():
            t.join(0.05)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if "exc" in out:
        raise out["exc"]
    return out["rc"]


class Case:
    """A case file read into a model, with overrides as `tvds run --set` takes them:
    Case("case.ini", set={"run.t_end": 0.1, "contact.tip.mu": 0.2}) or a list of
    "section.key=value" strings."""

    def __init__(self, path, set=None):
        if isinstance(set, dict):
            items = ["%s=%s" % (k, v) for k, v in set.items()]
        else:
            items = list(set or [])
        arr = (ctypes.c_char_p * max(1, len(items)))(*[enc(s) for s in items])
        self.path = os.fspath(path)
        self._ctx = Context()
        self._ptr = ctypes.c_void_p()
        self._ctx.check(lib.tvds_case_read(enc(self.path), arr, len(items),
                                           ctypes.byref(self._ptr), self._ctx.ptr))

    def __del__(self):
        if getattr(self, "_ptr", None):
            lib.tvds_model_free(ctypes.byref(self._ptr))

    @property
    def name(self):
        return lib.tvds_model_name(self._ptr).decode()

    @property
    def t_end(self):
        """End time [s]."""
        return lib.tvds_model_t_end(self._ptr)

    @property
    def dt(self):
        """Step asked for [s]; 0 when dt = auto (Simulation.dt gives the step in use)."""
        return lib.tvds_model_dt(self._ptr)

    @property
    def out_dt(self):
        """Output sampling [s]; 0: every step."""
        return lib.tvds_model_out_dt(self._ptr)

    @property
    def method(self):
        """"subs-a", "subs-b", "subs-c" or "film"."""
        return lib.tvds_method_name(lib.tvds_model_method(self._ptr)).decode()

    def option(self, key):
        """A [run] option by its case-file key (tvds_model_option: numbers)."""
        v = ctypes.c_double()
        ctx = Context()
        ctx.check(lib.tvds_model_option(self._ptr, enc(key), ctypes.byref(v), ctx.ptr))
        return v.value

    @property
    def options(self):
        """Every [run] option as a dict of numbers."""
        keys, i = [], 0
        while lib.tvds_model_option_key(i):
            keys.append(lib.tvds_model_option_key(i).decode())
            i += 1
        return {k: self.option(k) for k in keys}

    @property
    def substructures(self):
        """{name: reduced DoF count}."""
        return {lib.tvds_model_sub_name(self._ptr, i).decode(): lib.tvds_model_sub_ndof(self._ptr, i)
                for i in range(lib.tvds_model_nsub(self._ptr))}

    @property
    def contacts(self):
        return [(lib.tvds_model_contact_name(self._ptr, i) or b"").decode()
                for i in range(lib.tvds_model_ncontact(self._ptr))]

    @property
    def probes(self):
        return [lib.tvds_model_probe_name(self._ptr, i).decode()
                for i in range(lib.tvds_model_nprobe(self._ptr))]

    def run(self, outdir=None):
        """Run to t_end as `tvds run` does, writing outdir (default out/<name>): history.csv,
        contacts.csv, energy.csv, summary.json. Ctrl-C (SIGINT) or SIGTERM stop the run cleanly
        (outputs kept, summary "interrupted") and raise tvds.Interrupted. Returns a Run; an
        engine error (divergence, ...) raises TvdsError whose .outdir holds the outputs so far."""
        outdir = os.fspath(outdir) if outdir is not None else os.path.join("out", self.name)
        flag = _lib.c_sig_atomic(0)
        ctx = Context()
        rc = _interruptible(lambda: lib.tvds_run_simple(self._ptr, enc(outdir),
                                                         ctypes.byref(flag), ctx.ptr), flag)
        try:
            ctx.check(rc)
        except TvdsError as e:
            e.outdir = outdir
            raise
        return Run(outdir, warning=_lib.strerror(rc) if rc > 0 else None)

    def simulation(self):
        """Run data for stepping from Python (Simulation)."""
        return Simulation(self)

    def cea(self, contact=None, positions=21, s0=None, s1=None, s=None, **options):
        """Complex eigenvalue analysis along the sliding path (`tvds cea`, docs/cea.md).
        contact: name, index, "all" or None (the first). Positions: s (an array), or
        `positions` evenly spaced on [s0, s1] (default: the master surface, or the travel over a
        face set). options: fields of tvds_cea_options (nmodes=20, refine=True, undamped=False,
        state="deformed"|"undeformed", solver="auto"|"qz"|"standard"|"arpack", ...).
        Ctrl-C stops it (tvds.Interrupted). Returns a CeaResult."""
        if contact is None:
            c = 0
        elif contact == "all":
            c = _ALL_CONTACTS
        elif isinstance(contact, str):
            c = lib.tvds_model_find_contact(self._ptr, enc(contact))
            if c < 0:
                raise TvdsError(_lib.lib_status("TVDS_ERR_INVALID"),
                                "%s: no contact '%s'" % (self.path, contact))
        else:
            c = int(contact)
        ctx = Context()
        opt = ctypes.c_void_p(lib.tvds_cea_options_create())
        if not opt:
            raise MemoryError("tvds_cea_options_create")
        res = ctypes.c_void_p()
        try:
            words = {"state": {"deformed": 0, "undeformed": 1},
                     "solver": {"auto": 0, "qz": 1, "standard": 2, "arpack": 3}}
            for k, v in options.items():
                if isinstance(v, str) and k in words:
                    if v not in words[k]:
                        raise ValueError("cea: %s = %r (one of %s)" % (k, v, ", ".join(words[k])))
                    v = words[k][v]
                ctx.check(lib.tvds_cea_options_set(opt, enc(k), float(v), ctx.ptr))
            if s is None:
                if s0 is None or s1 is None:
                    lo, hi = ctypes.c_double(), ctypes.c_double()
                    ctx.check(lib.tvds_cea_default_range(self._ptr, max(c, 0), opt,
                                                         ctypes.byref(lo), ctypes.byref(hi),
                                                         ctx.ptr))
                    s0 = lo.value if s0 is None else s0
                    s1 = hi.value if s1 is None else s1
                s = np.linspace(s0, s1, int(positions))
            s = np.ascontiguousarray(s, dtype=float)
            flag = _lib.c_sig_atomic(0)
            lib.tvds_cea_options_set_stop(opt, ctypes.byref(flag))
            sp = s.ctypes.data_as(_lib.c_double_p)
            rc = _interruptible(lambda: lib.tvds_cea_run(self._ptr, c, sp, len(s), opt,
                                                         ctypes.byref(res), ctx.ptr), flag)
            ctx.check(rc)
            return CeaResult(res)
        finally:
            lib.tvds_cea_result_free(ctypes.byref(res))
            lib.tvds_cea_options_free(ctypes.byref(opt))


class Run:
    """Outputs of a finished run: .summary (dict of summary.json), .history, .contacts,
    .energy (Tables read from the CSVs), .outdir, .warning (None, or the warning it ended
    with)."""

    def __init__(self, outdir, warning=None):
        self.outdir = outdir
        self.warning = warning
        self.summary = read_summary(os.path.join(outdir, "summary.json"))

    def table(self, group):
        return read_csv(os.path.join(self.outdir, group + ".csv"))

    @property
    def history(self):
        return self.table("history")

    @property
    def contacts(self):
        return self.table("contacts")

    @property
    def energy(self):
        return self.table("energy")


class Simulation:
    """Run data over a Case, stepped from Python (tvds_data_create / tvds_step). The case must
    outlive it (it keeps a reference)."""

    def __init__(self, case):
        self.case = case
        self._ctx = Context()
        self._ptr = ctypes.c_void_p()
        self._ctx.check(lib.tvds_data_create(case._ptr, ctypes.byref(self._ptr), self._ctx.ptr))
        self._meta = {}

    def __del__(self):
        if getattr(self, "_ptr", None):
            lib.tvds_data_free(ctypes.byref(self._ptr))

    @property
    def time(self):
        return lib.tvds_data_time(self._ptr)

    @property
    def dt(self):
        """Step in use [s]."""
        return lib.tvds_data_dt(self._ptr)

    @property
    def steps(self):
        return lib.tvds_data_steps(self._ptr)

    @property
    def stable_dt(self):
        return lib.tvds_data_stable_dt(self._ptr)

    def step(self, n=1):
        """Take n steps; an engine error raises TvdsError (the state stays the last valid one)."""
        for _ in range(int(n)):
            self._ctx.check(lib.tvds_step(self.case._ptr, self._ptr, self._ctx.ptr))

    def _group(self, group):
        g = GROUPS.index(group) if isinstance(group, str) else int(group)
        n = ctypes.c_int()
        names = _lib.c_char_pp()
        values = _lib.c_double_p()
        if lib.tvds_channels(self._ptr, g, ctypes.byref(n), ctypes.byref(names),
                             ctypes.byref(values)) != 0:
            raise ValueError("no channel group %r" % (group,))
        if g not in self._meta:
            meta = [split_label(names[i]) for i in range(n.value)]
            self._meta[g] = ([m[0] for m in meta], [m[1] for m in meta])
        return g, n.value, values

    def channels(self, group="history"):
        """The channels of a group ("history", "contacts", "energy") now, as a one-row Table."""
        lib.tvds_channels_update(self.case._ptr, self._ptr)
        g, n, values = self._group(group)
        row = np.ctypeslib.as_array(values, shape=(n,)).copy() if n else np.zeros(0)
        return Table(self._meta[g][0], self._meta[g][1], row)

    def advance(self, t=None, groups=("history",), every=1):
        """Step until the time reaches t (default: t_end), recording the channels of groups
        as history.csv does: the state now, then after every `every` steps the instant its step
        completed (column "t": t_n = time - dt; a step that publishes no new instant, the first,
        adds no row). Returns {group: Table}. Ctrl-C raises KeyboardInterrupt between two
        steps, the state left valid."""
        t = self.case.t_end if t is None else t
        rows = {g: [] for g in groups}
        ptrs = {}
        for g in groups:
            gi, n, values = self._group(g)
            ptrs[g] = (n, values)

        tcol = self._group("history")[2]  # column 0 of every group is "t [s]"
        last = [None]

        def record():
            lib.tvds_channels_update(self.case._ptr, self._ptr)
            if last[0] is not None and not tcol[0] > last[0]:
                return
            last[0] = tcol[0]
            for g in groups:
                n, values = ptrs[g]
                rows[g].append(np.ctypeslib.as_array(values, shape=(n,)).copy())

        record()
        k = 0
        step = lib.tvds_step
        m, d, c = self.case._ptr, self._ptr, self._ctx.ptr
        while self.time < t * (1 - 1e-12):
            rc = step(m, d, c)
            if rc < 0:
                self._ctx.check(rc)
            k += 1
            if k % every == 0:
                record()
        out = {}
        for g in groups:
            gi = GROUPS.index(g) if isinstance(g, str) else int(g)
            out[g] = Table(self._meta[gi][0], self._meta[gi][1], np.array(rows[g]))
        return out

    def summary(self):
        """The engine's summary scalars now (tvds_summary) as a dict."""
        n = ctypes.c_int()
        names = _lib.c_char_pp()
        values = _lib.c_double_p()
        lib.tvds_channels_update(self.case._ptr, self._ptr)
        lib.tvds_summary(self._ptr, ctypes.byref(n), ctypes.byref(names), ctypes.byref(values))
        return {names[i].decode(): values[i] for i in range(n.value)}


class CeaResult:
    """A CEA locus as arrays: s (npos), freq, re, zeta, mac (npos x nbranch), resid,
    lambda_n, slope (npos), anti (npos x nbranch or None), windows (a dict of arrays, one
    entry per unstable window: branch, s_start, s_end, f_min, f_max, re_max, s_in, s_out,
    f_peak, s_peak, ...)."""

    WINDOW_FIELDS = ("branch", "s_start", "s_end", "f_min", "f_max", "re_max", "s_in", "s_out",
                     "f_peak", "s_peak", "t_start", "t_end", "growth_pred", "anti_peak")

    def __init__(self, res):
        npos, nbranch, nwin = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        lib.tvds_cea_result_size(res, ctypes.byref(npos), ctypes.byref(nbranch),
                                 ctypes.byref(nwin))
        self.npos, self.nbranch, self.nwin = npos.value, nbranch.value, nwin.value
        for name in ("s", "resid", "lambda_n", "slope", "freq", "re", "zeta", "mac", "anti"):
            n = ctypes.c_int()
            p = lib.tvds_cea_result_array(res, enc(name), ctypes.byref(n))
            a = np.ctypeslib.as_array(p, shape=(n.value,)).copy() if p and n.value else None
            if a is not None and n.value == self.npos * self.nbranch and \
                    name not in ("s", "resid", "lambda_n", "slope"):
                a = a.reshape(self.npos, self.nbranch)
            setattr(self, name, a)
        ctx = Context()
        self.windows = {}
        for f in self.WINDOW_FIELDS:
            buf = (ctypes.c_double * max(1, self.nwin))()
            ctx.check(lib.tvds_cea_result_windows(res, enc(f), buf, ctx.ptr))
            a = np.array(buf[:self.nwin], dtype=float)
            self.windows[f] = a.astype(int) if f == "branch" else a

    def __repr__(self):
        return "CeaResult(%d positions x %d branches, %d unstable windows)" % (
            self.npos, self.nbranch, self.nwin)


def reduce(model_dir, boundary, outdir, modes=20, fcut=0.0, recover=None, faces=None,
           check_mass=True):
    """Craig-Bampton reduction as `tvds reduce --model model_dir --boundary B --modes N
    [--fcut HZ] [--recover R] [--faces F] -o outdir` (docs/reduce.md); modes=0 with fcut > 0:
    every mode below fcut. Returns outdir."""
    ctx = Context()
    ctx.check(lib.tvds_reduce_dir(enc(os.fspath(model_dir)), enc(boundary), enc(recover),
                                  enc(faces), int(modes), float(fcut), int(bool(check_mass)),
                                  enc(os.fspath(outdir)), ctx.ptr))
    return os.fspath(outdir)


def import_calculix(inp, outdir, check_mass=True):
    """`tvds import calculix JOB.inp -o outdir` (docs/formats.md): the matrices CalculiX wrote
    beside JOB.inp into a full-model directory for reduce(). Returns outdir."""
    ctx = Context()
    ctx.check(lib.tvds_import_calculix_dir(enc(os.fspath(inp)), enc(os.fspath(outdir)),
                                           int(bool(check_mass)), ctx.ptr))
    return os.fspath(outdir)


def import_model(fmt, path, outdir, **kw):
    """`tvds import FORMAT PATH -o outdir`; formats: "calculix" ("ccx")."""
    if fmt in ("calculix", "ccx"):
        return import_calculix(path, outdir, **kw)
    raise ValueError("import: unknown format %r (known: calculix)" % (fmt,))
