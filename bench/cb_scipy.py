#!/usr/bin/env python3
"""cb_scipy.py - the Craig-Bampton reduction of `tvds reduce`, done with scipy, for
`tvds bench` (docs/performance.md): same files, same boundary, same number of modes.

    python3 bench/cb_scipy.py MODEL_DIR SET NMODES

MODEL_DIR holds M.mtx, K.mtx, dofs.txt, sets.txt (a tvds full model); the boundary is every
DoF of every node of node set SET, nodes in set order, directions in ux uy uz rx ry rz order
(as tvds). Fixed-interface modes: eigsh in shift-invert mode (sigma = 0) with the same sparse
LU of K_ii that gives the static constraint modes Psi = -K_ii^-1 K_ib. Prints one line
"scipy: key=value ..." with the stage times, the peak memory and the modal frequencies."""
import resource
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

DIRS = {"ux": 0, "uy": 1, "uz": 2, "rx": 3, "ry": 4, "rz": 5}


def read_dofs(path):
    index = {}
    n = 0
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            index[(int(line[0]), DIRS[line[1]])] = n
            n += 1
    return n, index


def read_set(path, name):
    nodes, cur = [], None
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].rstrip()
            cont = line.endswith("\\")
            toks = line.rstrip("\\").split()
            if cur is None and toks and toks[0] == "set":
                cur = toks[1]
                toks = toks[2:]
            if cur == name:
                nodes += [int(t) for t in toks]
            if not cont:
                cur = None
    return nodes


def main():
    model, setname, nmodes = sys.argv[1], sys.argv[2], int(sys.argv[3])
    t0 = time.perf_counter()
    n, index = read_dofs(model + "/dofs.txt")
    b = []
    for node in read_set(model + "/sets.txt", setname):
        b += [index[(node, d)] for d in range(6) if (node, d) in index]
    K = scipy.io.mmread(model + "/K.mtx").tocsc()
    M = scipy.io.mmread(model + "/M.mtx").tocsc()
    t_read = time.perf_counter() - t0

    t1 = time.perf_counter()
    b = np.array(b)
    interior = np.setdiff1d(np.arange(n), b)
    Kii = K[interior][:, interior].tocsc()
    Mii = M[interior][:, interior].tocsc()
    Kib = K[interior][:, b].toarray()
    lu = sla.splu(Kii)
    t_factor = time.perf_counter() - t1

    t2 = time.perf_counter()
    psi = -lu.solve(Kib)
    t_static = time.perf_counter() - t2

    t3 = time.perf_counter()
    ni = len(interior)
    op = sla.LinearOperator((ni, ni), matvec=lu.solve, dtype=float)
    lam, phi = sla.eigsh(Kii, k=nmodes, M=Mii, sigma=0.0, which="LM", OPinv=op, tol=1e-12)
    order = np.argsort(lam)
    lam, phi = lam[order], phi[:, order]
    t_modes = time.perf_counter() - t3

    t4 = time.perf_counter()
    nb = len(b)
    T = np.zeros((n, nb + nmodes))
    T[b, np.arange(nb)] = 1.0
    T[np.ix_(interior, np.arange(nb))] = psi
    T[np.ix_(interior, nb + np.arange(nmodes))] = phi
    Kr = T.T @ (K @ T)
    Mr = T.T @ (M @ T)
    t_project = time.perf_counter() - t4
    total = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    freqs = np.sqrt(np.abs(lam)) / (2 * np.pi)
    print("scipy: n=%d nb=%d read=%.3f factor=%.3f static=%.3f modes=%.3f project=%.3f "
          "total=%.3f maxrss_kib=%d symmetry=%.3g f=%s"
          % (n, nb, t_read, t_factor, t_static, t_modes, t_project, total, rss,
             abs(Kr - Kr.T).max() / abs(Kr).max() + abs(Mr - Mr.T).max() / abs(Mr).max(),
             ",".join("%.12g" % f for f in freqs)))


if __name__ == "__main__":
    main()
