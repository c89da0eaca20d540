#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The library's link graph, from its object files' symbols (nm).

An edge a -> b means object a uses a symbol that object b defines. Prints
the largest set of objects that use each other in a loop (a strongly
connected component), the objects each root pulls in when linked alone,
and, given a layer table, every edge from a lower layer to a higher one.

Usage: linkgraph.py OBJDIR [--layers FILE] [--sources DIR] [--pull OBJ ...]
                           [--max-loop N] [--max-pull N] [--no-debug-info] [--json]

OBJDIR: the library's object directory (build/lib/CMakeFiles/rdtalloc_obj.dir).
--layers FILE: lines "LAYER PATTERN" (LAYER an integer, bottom 0; PATTERN an
  fnmatch pattern of the object's path relative to OBJDIR without ".c.o");
  the first match wins; an object no line matches is an error. Lines
  "sees STRUCT PATTERN" name the objects that may see the definition of a
  private struct (its members): any other object that has it is an error.
  Where the objects carry debug info (DWARF: readelf), an object sees the
  struct when its DW_TAG_structure_type of that name has a DW_AT_byte_size
  (a definition; an opaque one is DW_AT_declaration); where they do not,
  when its source (--sources) includes, directly or through other headers,
  the header that defines it. The output says which was used.
--sources DIR: the library's sources (lib/). Two of its .c or .h files with
  the same name in different folders is an error (a name says what a file
  is: grep, a debugger's backtrace and a newcomer find one); an object
  whose DIR/OBJ.c no longer exists is left over from a renamed file in an
  older build and is not counted.
--max-loop N / --max-pull N: exit 1 when the largest loop has more than N
  objects or a --pull root pulls in more than N (itself included).
--no-debug-info: check the private structs from the sources even where the
  objects carry debug info (the fallback, tested on its own).
Exit 0: every check met; 1: a check failed (each printed); 2: usage.
"""
import fnmatch
import json
import os
import re
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


DIE = re.compile(r"^\s*<\d+><[0-9a-f]+>: Abbrev Number: \d+(?: \((DW_TAG_\w+)\))?")
DW_NAME = re.compile(r"^\s*<[0-9a-f]+>\s+DW_AT_name\s*:\s*(?:\([^)]*\):\s*)?(\S+)\s*$")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def dwarf_defines(path, names):
    """Which of names the object's debug info defines (a struct with a size,
    not a declaration); None when the object has no debug info."""
    res = subprocess.run(["readelf", "--debug-dump=info", path], capture_output=True,
                         text=True, check=True)
    if "DW_TAG_compile_unit" not in res.stdout:
        return None
    found, die = set(), {}

    def close():
        if die.get("tag") == "DW_TAG_structure_type" and die.get("size") and \
                die.get("name") in names:
            found.add(die["name"])

    for ln in res.stdout.splitlines():
        m = DIE.match(ln)
        if m:
            close()
            die = {"tag": m.group(1)}
        elif die.get("tag") == "DW_TAG_structure_type":
            m = DW_NAME.match(ln)
            if m:
                die["name"] = m.group(1)
            elif "DW_AT_byte_size" in ln:
                die["size"] = True
    close()
    return found


class Sources:
    """The fallback without debug info: the files of srcdir each source
    includes (its own folder first, then srcdir), and which define what."""

    def __init__(self, srcdir, names):
        self.srcdir, self.memo, self.defs = srcdir, {}, {}
        for dirpath, _, files in os.walk(srcdir):
            for f in files:
                if f.endswith((".c", ".h")):
                    p = os.path.realpath(os.path.join(dirpath, f))
                    with open(p, encoding="utf-8", errors="replace") as fh:
                        text = fh.read()
                    self.memo[p] = [q for q in (self.resolve(p, i) for i in
                                                INCLUDE.findall(text)) if q]
                    self.defs[p] = {n for n in names
                                    if re.search(r"\bstruct\s+%s\s*\{" % re.escape(n), text)}

    def resolve(self, where, inc):
        for base in (os.path.dirname(where), self.srcdir):
            p = os.path.realpath(os.path.join(base, inc))
            if os.path.isfile(p):
                return p
        return None

    def defines(self, obj):
        """Which of the names obj's source sees defined (None: no such source)."""
        root = os.path.realpath(os.path.join(self.srcdir, obj + ".c"))
        if root not in self.memo:
            return None
        seen, todo, found = {root}, [root], set()
        while todo:
            p = todo.pop()
            found |= self.defs.get(p, set())
            for q in self.memo.get(p, []):
                if q not in seen:
                    seen.add(q)
                    todo.append(q)
        return found


def private_structs(objdir, objs, sees, srcdir, use_dwarf):
    """For each struct of the 'sees' lines: the objects that see its
    definition, how that was found, and the objects not allowed to."""
    names = sorted({n for n, _ in sees})
    src = Sources(srcdir, names) if srcdir else None
    seen = {n: [] for n in names}
    how, failed = set(), []
    for o in objs:
        got = dwarf_defines(os.path.join(objdir, o + ".c.o"), names) if use_dwarf else None
        if got is not None:
            how.add("debug info")
        elif src is not None and (got := src.defines(o)) is not None:
            how.add("sources")
        else:
            failed.append(f"{o}: no debug info and no source to check the private structs in")
            continue
        for n in got:
            seen[n].append(o)
            if not any(fnmatch.fnmatchcase(o, p) for m, p in sees if m == n):
                failed.append(f"{o} sees the definition of struct {n} (only the objects of "
                              f"'sees {n}' lines may)")
    return seen, " and ".join(sorted(how)) or "nothing", failed


def read_layers(path):
    rules, sees = [], []
    with open(path, encoding="utf-8") as f:
        for n, ln in enumerate(f, 1):
            ln = ln.split("#", 1)[0].strip()
            if not ln:
                continue
            parts = ln.split()
            if len(parts) == 3 and parts[0] == "sees":
                sees.append((parts[1], parts[2]))
                continue
            if len(parts) != 2 or not parts[0].isdigit():
                sys.exit(f"{path}:{n}: expected 'LAYER PATTERN' or 'sees STRUCT PATTERN'")
            rules.append((int(parts[0]), parts[1]))
    return rules, sees


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
    srcdir, use_dwarf = None, True
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
            elif a == "--no-debug-info":
                use_dwarf, i = False, i + 1
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
        rules, sees = read_layers(layers)
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
        if sees:
            seen, how, bad = private_structs(objdir, objs, sees, srcdir, use_dwarf)
            report["private"] = {"from": how, "seen_by": seen}
            failed += bad
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
        for n, who in report.get("private", {}).get("seen_by", {}).items():
            print(f"struct {n} (from {report['private']['from']}): defined in {len(who)} "
                  f"of {len(objs)} objects: {' '.join(who)}")
        for f in failed:
            print(f"FAILED: {f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
