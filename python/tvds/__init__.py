"""tvds — Python interface to the tvds library: friction-induced vibration by dynamic
substructuring (docs/library.md).

    import tvds
    case = tvds.Case("models/shoe/sdnd100a_lagrange.ini", set={"run.t_end": 0.05})
    run = case.run("out/shoe")              # to t_end; Ctrl-C stops it cleanly
    run.history["dy"], run.history.unit("dy"), run.summary["status"]
    locus = tvds.Case("models/beam_on_beam/beam_on_beam.ini").cea(positions=21)
"""
from ._lib import TvdsError, Interrupted, path as library_path
from .core import (Case, Run, Simulation, CeaResult, Table, read_csv, read_summary,
                   split_label, reduce, import_calculix, import_model, version, GROUPS)

__all__ = ["TvdsError", "Interrupted", "library_path", "Case", "Run", "Simulation",
           "CeaResult", "Table", "read_csv", "read_summary", "split_label", "reduce",
           "import_calculix", "import_model", "version", "GROUPS"]
__version__ = "0.3.0"
