#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""linkgraph.py checked on objects made for it: each of its checks fails
when it must (an upward use, an object without a layer, a loop or a pull
past the limit, two sources of the same name, a private struct's definition
seen outside its objects, from debug info and from the sources' includes)
and passes when it must, with the exact message."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "linkgraph.py")

# low/a: base; mid/b uses a; top/c uses b. up/d (layer 0) uses c: upward.
SOURCES = {
    "low/a": "int a(void) { return 1; }\n",
    "mid/b": "int a(void);\nint b(void) { return a() + 1; }\n",
    "top/c": "int b(void);\nint c(void) { return b() + 1; }\n",
}
LAYERS = "0 low/*\n1 mid/*\n2 top/*\n"


# A private struct: its header (priv.h), the core that reads its members,
# a module that holds it opaque (through a header of its own, mod.h).
PRIV = {
    "priv.h": "struct priv { int a; };\n",
    "mod.h": "struct priv;\nint m(struct priv *p);\n",
    "core/k": '#include "../priv.h"\nint k(struct priv *p) { return p->a; }\n',
    "mod/m": '#include "../mod.h"\nint m(struct priv *p) { return p != 0; }\n',
}
# mod/m reads a member: the definition, through a header that includes priv.h.
LEAK = {
    "mod.h": '#include "priv.h"\nint m(struct priv *p);\n',
    "mod/m": '#include "../mod.h"\nint m(struct priv *p) { return p->a; }\n',
}
PRIV_LAYERS = "0 mod/*\n1 core/*\nsees priv core/*\n"


def build(objdir, sources, cflags=()):
    for name, text in sources.items():
        if name.endswith(".h"):
            continue
        src = os.path.join(objdir, name + ".c")
        os.makedirs(os.path.dirname(src), exist_ok=True)
        for h, t in sources.items():
            if h.endswith(".h"):
                with open(os.path.join(objdir, h), "w", encoding="utf-8") as f:
                    f.write(t)
        with open(src, "w", encoding="utf-8") as f:
            f.write(text)
        subprocess.run(["cc", *cflags, "-c", "-o", src + ".o", src], check=True)
        os.unlink(src)
    for h in sources:
        if h.endswith(".h") and os.path.exists(os.path.join(objdir, h)):
            os.unlink(os.path.join(objdir, h))


def write_sources(srcdir, sources):
    for name, text in sources.items():
        src = os.path.join(srcdir, name if name.endswith(".h") else name + ".c")
        os.makedirs(os.path.dirname(src), exist_ok=True)
        with open(src, "w", encoding="utf-8") as f:
            f.write(text)


def run(objdir, *args):
    res = subprocess.run([sys.executable, TOOL, objdir, *args], capture_output=True, text=True)
    return res.returncode, res.stdout


def expect(what, got, rc, lines):
    code, out = got
    missing = [ln for ln in lines if ln not in out.splitlines()]
    if code != rc or missing:
        print(f"FAIL {what}: exit {code} (want {rc}), missing {missing}\n{out}")
        return 1
    print(f"ok   {what}")
    return 0


def main():
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        layers = os.path.join(tmp, "layers.txt")
        with open(layers, "w", encoding="utf-8") as f:
            f.write(LAYERS)
        good = os.path.join(tmp, "good")
        build(good, SOURCES)
        bad += expect("layered, no loop", run(good, "--layers", layers, "--pull", "top/c",
                                              "--max-loop", "0", "--max-pull", "3"), 0,
                      ["largest loop: 0 objects", "top/c alone pulls in 3 of 3 objects"])
        bad += expect("pull past the limit", run(good, "--pull", "top/c", "--max-pull", "2"), 1,
                      ["FAILED: top/c pulls in 3 objects (at most 2)"])

        up = os.path.join(tmp, "up")
        build(up, dict(SOURCES, **{"low/d": "int c(void);\nint d(void) { return c(); }\n"}))
        bad += expect("a lower layer using a higher one", run(up, "--layers", layers), 1,
                      ["FAILED: low/d (layer 0) uses top/c (layer 2): c"])

        loop = os.path.join(tmp, "loop")
        build(loop, dict(SOURCES, **{"low/a": "int c(void);\nint a(void) { return c(); }\n"}))
        bad += expect("a loop past the limit", run(loop, "--max-loop", "2"), 1,
                      ["largest loop: 3 objects", "  loop of 3: low/a mid/b top/c",
                       "FAILED: largest loop: 3 objects (at most 2)"])

        extra = os.path.join(tmp, "extra")
        build(extra, dict(SOURCES, **{"new/e": "int e(void) { return 5; }\n"}))
        bad += expect("an object no layer names", run(extra, "--layers", layers), 1,
                      [f"FAILED: new/e: no layer in {layers}"])

        # --sources: the files of the library as they are now.
        src = os.path.join(tmp, "src")
        write_sources(src, SOURCES)
        bad += expect("every name once; a stale object not counted",
                      run(extra, "--layers", layers, "--sources", src), 0,
                      ["objects: 3"])
        write_sources(src, {"top/a": "int a2(void) { return 2; }\n"})
        bad += expect("two files of the same name",
                      run(good, "--layers", layers, "--sources", src), 1,
                      ["FAILED: two files named a.c: low/a.c top/a.c"])

        bad += private(tmp)
    return 1 if bad else 0


def private(tmp):
    """The 'sees' lines, from debug info (cc -g) and from the sources."""
    bad = 0
    layers = os.path.join(tmp, "priv.txt")
    with open(layers, "w", encoding="utf-8") as f:
        f.write(PRIV_LAYERS)
    seen_core = "struct priv (from {}): defined in 1 of 2 objects: core/k"
    seen_both = "struct priv (from {}): defined in 2 of 2 objects: core/k mod/m"
    leak_msg = ("FAILED: mod/m sees the definition of struct priv (only the objects of "
                "'sees priv' lines may)")
    src, leak_src = os.path.join(tmp, "psrc"), os.path.join(tmp, "lsrc")
    write_sources(src, PRIV)
    write_sources(leak_src, dict(PRIV, **LEAK))

    dbg = os.path.join(tmp, "pdbg")
    build(dbg, PRIV, ["-g"])
    bad += expect("opaque outside its objects (debug info)", run(dbg, "--layers", layers), 0,
                  [seen_core.format("debug info")])
    dleak = os.path.join(tmp, "pleak")
    build(dleak, dict(PRIV, **LEAK), ["-g"])
    bad += expect("a definition outside its objects (debug info)",
                  run(dleak, "--layers", layers), 1,
                  [seen_both.format("debug info"), leak_msg])
    # the sources say it too, when asked to look there
    bad += expect("a definition outside its objects (sources, asked)",
                  run(dleak, "--layers", layers, "--sources", leak_src, "--no-debug-info"), 1,
                  [seen_both.format("sources"), leak_msg])

    # no debug info: the sources' includes decide, or the check fails
    plain, pleak = os.path.join(tmp, "pplain"), os.path.join(tmp, "pplainleak")
    build(plain, PRIV)
    build(pleak, dict(PRIV, **LEAK))
    bad += expect("opaque outside its objects (sources)",
                  run(plain, "--layers", layers, "--sources", src), 0,
                  [seen_core.format("sources")])
    bad += expect("a definition outside its objects (sources)",
                  run(pleak, "--layers", layers, "--sources", leak_src), 1,
                  [seen_both.format("sources"), leak_msg])
    bad += expect("no debug info and no sources", run(plain, "--layers", layers), 1,
                  ["FAILED: core/k: no debug info and no source to check the private "
                   "structs in"])
    return bad


if __name__ == "__main__":
    sys.exit(main())
