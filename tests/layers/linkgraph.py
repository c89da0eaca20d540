#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The library's link graph, from its object files' symbols (nm).

An edge a -> b means object a uses a symbol that object b defines. Prints
the largest set of objects that use each other in a loop (a strongly
connected component), the objects each root pulls in when linked alone,
and, given a layer table, every edge from a lower layer to a higher one.

Usage: linkgraph.py OBJDIR [--layers FILE] [--sources DIR] [--pull OBJ ...]
                           [--max-loop N] [--max-pull N] [--json]

OBJDIR: the library's object directory (build/lib/CMakeFiles/rdtalloc_obj.dir).
--layers FILE: lines "LAYER PATTERN" (LAYER an integer, bottom 0; PATTERN an
  fnmatch pattern of the object's path relative to OBJDIR without ".c.o");
  the first match wins; an object no line matches is an error.
--sources DIR: the library's sources (lib/). Two of its .c or .h files with
  the same name in different folders is an error (a name says what a file
  is: grep, a debugger's backtrace and a newcomer find one); an object
  whose DIR/OBJ.c no longer exists is left over from a renamed file in an
  older build and is not counted.
--max-loop N / --max-pull N: exit 1 when the largest loop has more than N
  objects or a --pull root pulls in more than N (itself included).
Exit 0: every check met; 1: a check failed (each printed); 2: usage.
"""
import fnmatch
import json
import os
import subprocess
import sys


def objects(objdir):
    out = []
    for dirpath, _, files in os.walk(objdir):
        for f in files:
            if f.endswith(".c.o"):
                p = os.path.join(dirpath, f)
                out.append(os.path.relpath(p, objdir)[: -len(".c.o")])
    return sorted(out)


def symbols(objdir, name):
    path = os.path.join(objdir, name + ".c.o")
    res = subprocess.run(["nm", "--defined-only", "-g", path], capture_output=True,
                         text=True, check=True)
    defined = {ln.split()[-1] for ln in res.stdout.splitlines() if ln.strip()}
    res = subprocess.run(["nm", "-u", path], capture_output=True, text=True, check=True)
    used = {ln.split()[-1] for ln in res.stdout.splitlines() if ln.strip()}
    return defined, used


def same_names(srcdir):
    """Lines "NAME: a/NAME b/NAME" for each name two files of srcdir share."""
    where = {}
    for dirpath, _, files in os.walk(srcdir):
        for f in files:
            if f.endswith((".c", ".h")):
                rel = os.path.relpath(os.path.join(dirpath, f), srcdir)
                where.setdefault(f, []).append(rel)
    return [f"{n}: {' '.join(sorted(p))}" for n, p in sorted(where.items()) if len(p) > 1]


def graph(objdir, srcdir=None):
    objs = objects(objdir)
    if srcdir:
        objs = [o for o in objs if os.path.isfile(os.path.join(srcdir, o + ".c"))]
    defs, uses = {}, {}
    for o in objs:
        defs[o], uses[o] = symbols(objdir, o)
    owner = {}
    for o in objs:
        for s in defs[o]:
            owner.setdefault(s, o)
    edges = {o: {} for o in objs}
    for o in objs:
        for s in uses[o]:
            d = owner.get(s)
            if d is not None and d != o:
                edges[o].setdefault(d, []).append(s)
    return objs, edges


def sccs(objs, edges):
    """Tarjan's algorithm, iterative (the graph is small, recursion would do)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(edges[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                out.append(sorted(comp))

    for v in objs:
        if v not in index:
            visit(v)
    return out


def closure(edges, root):
    seen, todo = {root}, [root]
    while todo:
        for w in edges[todo.pop()]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def read_layers(path):
    rules = []
    with open(path, encoding="utf-8") as f:
        for n, ln in enumerate(f, 1):
            ln = ln.split("#", 1)[0].strip()
            if not ln:
                continue
            parts = ln.split()
            if len(parts) != 2 or not parts[0].isdigit():
                sys.exit(f"{path}:{n}: expected 'LAYER PATTERN'")
            rules.append((int(parts[0]), parts[1]))
    return rules


def layer_of(rules, obj):
    for lay, pat in rules:
        if fnmatch.fnmatchcase(obj, pat):
            return lay
    return None


def main(argv):
    args = argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    objdir, layers, pulls, max_loop, max_pull, as_json = args[0], None, [], None, None, False
    srcdir = None
    i = 1
    try:
        while i < len(args):
            a = args[i]
            if a == "--layers":
                layers, i = args[i + 1], i + 2
            elif a == "--sources":
                srcdir, i = args[i + 1], i + 2
            elif a == "--pull":
                i += 1
                while i < len(args) and not args[i].startswith("--"):
                    pulls.append(args[i])
                    i += 1
            elif a == "--max-loop":
                max_loop, i = int(args[i + 1]), i + 2
            elif a == "--max-pull":
                max_pull, i = int(args[i + 1]), i + 2
            elif a == "--json":
                as_json, i = True, i + 1
            else:
                print(f"linkgraph: unknown option '{a}'", file=sys.stderr)
                return 2
    except (IndexError, ValueError):
        print("linkgraph: an option lacks its value", file=sys.stderr)
        return 2
    if not os.path.isdir(objdir):
        print(f"linkgraph: {objdir}: not a directory", file=sys.stderr)
        return 2
    if srcdir and not os.path.isdir(srcdir):
        print(f"linkgraph: --sources {srcdir}: not a directory", file=sys.stderr)
        return 2
    objs, edges = graph(objdir, srcdir)
    if not objs:
        print(f"linkgraph: {objdir}: no object files", file=sys.stderr)
        return 2
    comps = sorted(sccs(objs, edges), key=len, reverse=True)
    loops = [c for c in comps if len(c) > 1]
    failed = []
    if srcdir:
        failed += [f"two files named {d}" for d in same_names(srcdir)]
    report = {"objects": len(objs), "loops": loops, "pull": {}, "upward": []}
    for p in pulls:
        if p not in edges:
            print(f"linkgraph: --pull {p}: no such object", file=sys.stderr)
            return 2
        report["pull"][p] = sorted(closure(edges, p))
    if layers:
        rules = read_layers(layers)
        for o in objs:
            if layer_of(rules, o) is None:
                failed.append(f"{o}: no layer in {layers}")
        for o in objs:
            lo = layer_of(rules, o)
            for d, syms in sorted(edges[o].items()):
                ld = layer_of(rules, d)
                if lo is not None and ld is not None and ld > lo:
                    report["upward"].append({"from": o, "layer": lo, "to": d,
                                             "to_layer": ld, "symbols": sorted(syms)})
        for u in report["upward"]:
            failed.append(f"{u['from']} (layer {u['layer']}) uses {u['to']} "
                          f"(layer {u['to_layer']}): {', '.join(u['symbols'][:4])}")
    largest = len(loops[0]) if loops else 0
    if max_loop is not None and largest > max_loop:
        failed.append(f"largest loop: {largest} objects (at most {max_loop})")
    for p, c in report["pull"].items():
        if max_pull is not None and len(c) > max_pull:
            failed.append(f"{p} pulls in {len(c)} objects (at most {max_pull})")
    if as_json:
        report["failed"] = failed
        print(json.dumps(report, indent=1))
    else:
        print(f"objects: {len(objs)}")
        print(f"largest loop: {largest} objects")
        for c in loops:
            print(f"  loop of {len(c)}: {' '.join(c)}")
        for p, c in report["pull"].items():
            print(f"{p} alone pulls in {len(c)} of {len(objs)} objects")
        for f in failed:
            print(f"FAILED: {f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
