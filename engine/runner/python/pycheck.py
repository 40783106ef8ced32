#!/usr/bin/python3
"""pycheck: the static check of a Python candidate, run by the controller
(trusted code, in its own process, before anything of the candidate runs;
docs/python.md).  It only parses: nothing of the candidate is imported or
executed here.

    pycheck.py <bundle> [--entry NAME] [--forbid-library-calls] [--allow NAME]...

Always: every file is UTF-8 and parses as Python.  With
--forbid-library-calls (a task's forbid_library_calls: true) the
candidate may not reach a library kernel, so that the work is its own:

  - imports: torch, triton, triton.language, math, typing, functools and
    the bundle's own modules only;
  - torch: allocation and metadata only (torch.empty*, zeros*, ones*,
    full*, dtypes, torch.cuda.current_stream/device...), plus the task's
    allowed_calls ("torch.matmul");
  - tensor methods: views and metadata only (view, reshape, stride,
    numel, data_ptr, ...), plus allowed_calls ("Tensor.sum");
  - outside Triton kernels (@triton.jit and its decorators): no item
    assignment, no in-place operator, no `@`, and no arithmetic on a value
    that comes from a tensor (only on sizes, strides and constants), so a
    library kernel cannot hide in an operator; nor in a builtin or a math
    function that computes with its arguments (abs, pow, sum, max,
    math.prod...: a tensor may only be handed to builtins that pass it
    along, as len, list or zip do), nor in a lambda (its parameters are
    tensors as a function's are), nor in an index made of a tensor (a
    gather);
  - everywhere outside Triton kernels: such a builtin, a math function
    or a torch call this task forbids named as a value (map(abs, ...),
    functools.reduce(math.prod, ...), [torch.exp][0](x)): what it is
    later called on cannot be followed;
  - nowhere: eval, exec, compile, __import__, getattr, setattr, globals,
    open, type, ... (a name built at run time could reach anything), any
    dunder attribute, and assignments to attributes of a module
    (monkeypatching torch or triton).

Exit 0: accepted.  Exit 1: one line per finding on stdout,
"<file>:<line>: <what>".  Exit 2: usage.
"""
import ast
import sys

ALLOWED_MODULES = {"torch", "triton", "triton.language", "math", "typing",
                   "functools"}
TORCH_OK = {
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones",
    "ones_like", "full", "full_like", "device", "dtype", "Size", "Tensor",
    "float32", "float", "float64", "double", "float16", "half", "bfloat16",
    "int8", "uint8", "int16", "int32", "int", "int64", "long", "bool",
    "float8_e4m3fn", "float8_e5m2", "is_tensor", "numel", "get_default_dtype",
    "cuda.current_stream", "cuda.current_device", "cuda.get_device_capability",
    "cuda.get_device_properties", "cuda.is_available", "cuda.device_count",
    "finfo", "iinfo", "no_grad", "inference_mode",
}
# Tensor methods (and attributes read through a call) that only look.
METHODS_OK = {
    "view", "view_as", "reshape", "contiguous", "is_contiguous", "stride",
    "size", "numel", "dim", "ndimension", "data_ptr", "element_size",
    "unsqueeze", "squeeze", "flatten", "unflatten", "t", "transpose",
    "permute", "expand", "expand_as", "as_strided", "narrow", "select",
    "chunk", "split", "unbind", "movedim", "item", "get_device",
    "is_floating_point", "nbytes", "untyped_storage",
    # plain Python on lists, dicts, strings and numbers
    "append", "extend", "insert", "pop", "items", "keys", "values", "get",
    "update", "setdefault", "format", "join", "startswith", "endswith",
    "strip", "lower", "upper", "bit_length", "is_integer", "copy",
}
# Methods and attributes whose result is a size, not a tensor.
SCALAR_ACCESS = {"shape", "numel", "stride", "size", "dim", "ndim",
                 "element_size", "data_ptr", "dtype", "device", "item",
                 "is_contiguous", "nbytes", "ndimension", "is_cuda",
                 "get_device", "is_floating_point"}
BUILTINS_OK = {
    "range", "len", "min", "max", "int", "float", "bool", "abs", "enumerate",
    "zip", "tuple", "list", "dict", "set", "frozenset", "isinstance",
    "print", "round", "divmod", "pow", "str", "repr", "sorted", "reversed",
    "any", "all", "sum", "map", "filter", "slice", "iter", "next",
    "ValueError", "TypeError", "RuntimeError", "AssertionError",
    "NotImplementedError", "IndexError", "KeyError", "Exception",
    "staticmethod", "classmethod", "property", "super", "hash", "id",
}
BUILTINS_FORBIDDEN = {
    "eval", "exec", "compile", "__import__", "getattr", "setattr",
    "delattr", "hasattr", "globals", "locals", "vars", "open", "breakpoint",
    "input", "memoryview", "help", "exit", "quit", "type", "object", "dir",
    "__builtins__", "__loader__", "__spec__", "bytearray",
}
JIT_DECORATORS = {"jit", "autotune", "heuristics"}
# Builtins whose result is never a tensor.
SCALAR_CALLS = {"len", "int", "float", "bool", "str", "repr", "isinstance",
                "range", "hash", "id"}
# Builtins that may be handed a tensor: they pass it along, look at it or
# turn a one-element tensor into a number, and compute nothing with it.
# Every other builtin of BUILTINS_OK computes with what it is given
# (abs(x) is x.abs(), sum(xs) adds, max compares, sorted sorts), so a
# tensor handed to one of them runs a library kernel.
BUILTINS_PASS = {
    "len", "int", "float", "bool", "str", "repr", "isinstance", "range",
    "hash", "id", "print", "enumerate", "zip", "tuple", "list", "dict",
    "set", "frozenset", "iter", "next", "map", "slice", "super",
    "staticmethod", "classmethod", "property", "ValueError", "TypeError",
    "RuntimeError", "AssertionError", "NotImplementedError", "IndexError",
    "KeyError", "Exception",
}
# math's constants, which may be named as values; its functions may not.
MATH_CONSTANTS = {"pi", "e", "tau", "inf", "nan"}
# torch attributes that name no kernel (layouts and memory formats), which
# may be named as values besides TORCH_OK and the dtypes (dtype_name).
TORCH_VALUES_OK = {"strided", "contiguous_format", "channels_last",
                   "preserve_format", "sparse_coo", "jagged", "cuda"}
DTYPE_PREFIXES = ("float", "int", "uint", "bfloat", "complex", "bool",
                  "qint", "quint", "half", "double", "long", "short",
                  "cfloat", "cdouble", "chalf")


def dtype_name(api):
    """Whether torch.<api> names a dtype (torch.float8_e4m3fnuz, ...)."""
    return "." not in api and api.startswith(DTYPE_PREFIXES)


class Finding(Exception):
    pass


def dotted(node):
    """'a.b.c' of an attribute chain rooted at a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def target_names(t):
    """The names an assignment to target t stores into: h[k] stores into
    h, not into k."""
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, ast.Subscript):
        return target_names(t.value)
    if isinstance(t, (ast.Attribute, ast.Starred)):
        return target_names(t.value)
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in target_names(e)]
    return [n.id for n in ast.walk(t) if isinstance(n, ast.Name)]


def is_jit(fn, aliases):
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        name = dotted(target) or ""
        root, _, rest = name.partition(".")
        origin = aliases.get(root, root)
        full = origin + ("." + rest if rest else "")
        if full.startswith("triton.") and full.split(".")[-1] in JIT_DECORATORS:
            return True
    return False


class Checker(ast.NodeVisitor):
    def __init__(self, path, own_modules, allowed, findings, entry="launch"):
        self.entry = entry
        self.path = path
        self.own = own_modules
        self.allowed = allowed
        self.findings = findings
        self.aliases = {}        # local name -> module it stands for
        self.defined = set()     # functions and classes of this module
        self.in_jit = 0
        self.tainted = set()     # names that hold tensors (this function)
        self.ever_tainted = set()  # names that held one anywhere
        # Nodes named to be called or to reach an attribute (f in f(x),
        # torch in torch.exp): every other name is a value (run_checker).
        self.reached = set()
        # Functions and lambdas used only as a launch's grid (kernel[g]),
        # by name or, for a lambda, by id: the constexpr parameters of
        # their kernels (launch_grids).  Triton calls a grid with every
        # argument of the launch by name, tensors included, so a grid's
        # parameter is a tensor, but its items named by those keys are
        # compile-time constants.
        self.grids = {}
        self.meta_keys = {}      # grid parameter -> its constant keys
        # Helpers only ever called directly by name (direct_helpers): the
        # parameters that some call hands a tensor, as known (fed) and as
        # seen in this pass (fed_seen); every other function's parameters
        # are all tensors.
        self.helpers = {}
        self.fed = {}
        self.fed_seen = {}
        # Functions of this module that return a tensor (known from the
        # passes before, seen in this one), and the one being visited.
        self.returns = set()
        self.returns_seen = set()
        self.function = None

    def flag(self, node, what):
        self.findings.append("%s:%d: %s" % (self.path, getattr(node, "lineno", 0), what))

    # -- imports --

    def visit_Import(self, node):
        for a in node.names:
            if a.name not in ALLOWED_MODULES and a.name not in self.own:
                self.flag(node, "imports %s; this task allows imports of %s "
                          "only" % (a.name, ", ".join(sorted(ALLOWED_MODULES))))
            local = a.asname or a.name.split(".")[0]
            self.aliases[local] = a.name if a.asname else a.name.split(".")[0]

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        if node.level or (mod not in ALLOWED_MODULES and mod not in self.own):
            self.flag(node, "imports from %s; this task allows imports of "
                      "%s only" % (mod or ".", ", ".join(sorted(ALLOWED_MODULES))))
            return
        for a in node.names:
            full = mod + "." + a.name
            if a.name == "*":
                self.flag(node, "imports * from %s; name what you use" % mod)
            elif full in ALLOWED_MODULES:
                self.aliases[a.asname or a.name] = full
            elif mod == "torch" and a.name not in TORCH_OK:
                self.flag(node, "imports torch.%s, a library call this task "
                          "forbids" % a.name)
            else:
                self.aliases[a.asname or a.name] = full

    # -- names and attributes --

    def visit_Name(self, node):
        if node.id in BUILTINS_FORBIDDEN:
            self.flag(node, "uses %s, which this task forbids (a name built "
                      "at run time could reach any library call)" % node.id)
        elif self.is_value(node) and node.id in BUILTINS_OK \
                and node.id not in BUILTINS_PASS \
                and node.id not in self.defined:
            self.flag(node, "names the builtin %s as a value; it computes "
                      "with what it is given, and what that will be cannot "
                      "be followed (call it on sizes only)" % node.id)

    def visit_Attribute(self, node):
        if node.attr.startswith("__") and node.attr.endswith("__"):
            self.flag(node, "uses the attribute %s, which this task forbids"
                      % node.attr)
        elif self.is_value(node):
            full = self.resolve(dotted(node) or "") or ""
            api = full[len("torch."):]
            if full.startswith("torch.") and api not in TORCH_OK \
                    and api not in TORCH_VALUES_OK and not dtype_name(api) \
                    and full not in self.allowed:
                self.flag(node, "names %s as a value, a library kernel this "
                          "task forbids" % full)
            elif full.startswith("math.") and \
                    full[len("math."):] not in MATH_CONSTANTS:
                self.flag(node, "names %s as a value; it computes with what "
                          "it is given, and what that will be cannot be "
                          "followed" % full)
        self.generic_visit(node)

    def is_value(self, node):
        """A name or attribute read in host code neither to call it nor to
        reach one of its attributes."""
        return not self.in_jit and isinstance(node.ctx, ast.Load) and \
            id(node) not in self.reached

    def visit_Subscript(self, node):
        # kernel[grid](...) is a launch, whatever the grid holds.
        if self.is_value(node) and self.tensorish(node.slice):
            self.flag(node, "indexes with a tensor outside a Triton kernel "
                      "(a gather, a library kernel)")
        elif self.is_value(node) and self.tensorish(node.value) and any(
                isinstance(n, (ast.List, ast.ListComp, ast.Set))
                for n in ast.walk(node.slice)):
            self.flag(node, "indexes a tensor with a list outside a Triton "
                      "kernel (a gather, a library kernel)")
        self.generic_visit(node)

    def resolve(self, name):
        """The module path a dotted name reaches, when it starts at an
        imported module; else None."""
        root, _, rest = name.partition(".")
        if root not in self.aliases:
            return None
        return self.aliases[root] + ("." + rest if rest else "")

    def check_store(self, target):
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self.check_store(t)
            return
        if isinstance(target, ast.Attribute):
            name = dotted(target)
            if name and self.resolve(name):
                self.flag(target, "assigns to %s (changing a library "
                          "module is forbidden)" % self.resolve(name))
        if isinstance(target, ast.Subscript) and not self.in_jit:
            self.flag(target, "assigns into an element or slice outside a "
                      "Triton kernel; write outputs from a kernel")

    def visit_Assign(self, node):
        for t in node.targets:
            self.check_store(t)
        if not self.in_jit and self.tensorish(node.value):
            # Every name in the target, the object of an attribute or the
            # container of an item included (h.x = t taints h), but not
            # the key of an item (h[k] = t leaves k a key).
            for t in node.targets:
                for n in target_names(t):
                    self.tainted.add(n)
                    self.ever_tainted.add(n)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        self.check_store(node.target)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self.check_store(node.target)
        if not self.in_jit and not (isinstance(node.target, ast.Name)
                                    and node.target.id not in self.tainted):
            self.flag(node, "uses an in-place operator outside a Triton "
                      "kernel")
        elif not self.in_jit and self.tensorish(node.value):
            # s += t on a number s: s + t, a library kernel.
            self.flag(node, "computes with a tensor outside a Triton "
                      "kernel (an operator on a tensor runs a library "
                      "kernel)")
        self.generic_visit(node)

    def visit_NamedExpr(self, node):
        if not self.in_jit and self.tensorish(node.value):
            self.tainted.add(node.target.id)
            self.ever_tainted.add(node.target.id)
        self.generic_visit(node)

    def visit_Match(self, node):
        # Every name a pattern binds may be the subject or a part of it.
        if not self.in_jit and self.tensorish(node.subject):
            for case in node.cases:
                for n in ast.walk(case.pattern):
                    name = getattr(n, "name", None) or getattr(n, "rest", None)
                    if isinstance(name, str):
                        self.tainted.add(name)
                        self.ever_tainted.add(name)
        self.generic_visit(node)

    def visit_Delete(self, node):
        for t in node.targets:
            self.check_store(t)
        self.generic_visit(node)

    # -- tensors in host code --

    def tensorish(self, e):
        """Whether an expression of host code may hold a tensor: it
        mentions a tainted name other than through a size accessor, or
        calls torch."""
        if isinstance(e, ast.Name):
            return e.id in self.tainted
        if isinstance(e, ast.Attribute):
            if e.attr in SCALAR_ACCESS:
                return False
            return self.tensorish(e.value)
        if isinstance(e, ast.Subscript):
            if isinstance(e.value, ast.Attribute) and e.value.attr in SCALAR_ACCESS:
                return False
            if isinstance(e.value, ast.Name) and \
                    isinstance(e.slice, ast.Constant) and \
                    e.slice.value in self.meta_keys.get(e.value.id, ()):
                return False        # meta["BLOCK"] in a launch's grid
            return self.tensorish(e.value)
        if isinstance(e, ast.Call):
            f = e.func
            if isinstance(f, ast.Attribute) and f.attr in SCALAR_ACCESS:
                return False
            name = dotted(f) or ""
            full = self.resolve(name) or ""
            if full.startswith("torch."):
                return True
            if name in SCALAR_CALLS or full.startswith("triton."):
                return False
            if isinstance(f, ast.Name) and f.id in self.returns:
                return True     # a helper that returns one
            # Anything else may hand a tensor through (list(args),
            # a helper, a method of a tainted object).
            if isinstance(f, ast.Attribute) and self.tensorish(f.value):
                return True
            return any(self.tensorish(a) for a in e.args) or \
                any(self.tensorish(k.value) for k in e.keywords)
        if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
            return any(self.tensorish(x) for x in e.elts)
        if isinstance(e, ast.Dict):
            return any(self.tensorish(v) for v in e.values if v is not None)
        if isinstance(e, ast.Starred):
            return self.tensorish(e.value)
        if isinstance(e, (ast.ListComp, ast.SetComp, ast.GeneratorExp,
                          ast.DictComp)):
            # What each element is, with the loop variables of tensors
            # counted as tensors.
            saved = self.tainted
            self.tainted = set(saved)
            for g in e.generators:
                if self.tensorish(g.iter):
                    for n in ast.walk(g.target):
                        if isinstance(n, ast.Name):
                            self.tainted.add(n.id)
            elts = [e.key, e.value] if isinstance(e, ast.DictComp) else [e.elt]
            r = any(self.tensorish(x) for x in elts)
            self.tainted = saved
            return r
        if isinstance(e, ast.BinOp):
            return self.tensorish(e.left) or self.tensorish(e.right)
        if isinstance(e, ast.UnaryOp):
            return self.tensorish(e.operand)
        if isinstance(e, ast.IfExp):
            return self.tensorish(e.body) or self.tensorish(e.orelse)
        if isinstance(e, ast.NamedExpr):
            return self.tensorish(e.value)
        if isinstance(e, ast.BoolOp):       # x or y is x or y itself
            return any(self.tensorish(v) for v in e.values)
        return False

    def visit_For(self, node):
        if not self.in_jit and self.tensorish(node.iter):
            for n in ast.walk(node.target):
                if isinstance(n, ast.Name):
                    self.tainted.add(n.id)
        self.generic_visit(node)

    def visit_comprehension(self, node):
        if not self.in_jit and self.tensorish(node.iter):
            for n in ast.walk(node.target):
                if isinstance(n, ast.Name):
                    self.tainted.add(n.id)
        self.generic_visit(node)

    def visit_BinOp(self, node):
        if not self.in_jit:
            if isinstance(node.op, ast.MatMult):
                self.flag(node, "uses the @ operator (a matmul) outside a "
                          "Triton kernel")
            elif self.tensorish(node.left) or self.tensorish(node.right):
                self.flag(node, "computes with a tensor outside a Triton "
                          "kernel (an operator on a tensor runs a library "
                          "kernel)")
        self.generic_visit(node)

    def visit_UnaryOp(self, node):
        if not self.in_jit and self.tensorish(node.operand):
            self.flag(node, "computes with a tensor outside a Triton kernel")
        self.generic_visit(node)

    def visit_Compare(self, node):
        identity = all(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops)
        if not self.in_jit and not identity and (
                self.tensorish(node.left) or
                any(self.tensorish(c) for c in node.comparators)):
            self.flag(node, "compares tensors outside a Triton kernel (a "
                      "library kernel)")
        self.generic_visit(node)

    # -- calls --

    def visit_Call(self, node):
        if not self.in_jit:
            self.check_call(node)
            self.note_fed(node)
            # G.append(t), d.update(x=t): the object now holds a tensor.
            f = node.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
                    and f.value.id not in self.aliases \
                    and (any(self.tensorish(a) for a in node.args) or
                         any(self.tensorish(k.value) for k in node.keywords)):
                self.tainted.add(f.value.id)
                self.ever_tainted.add(f.value.id)
        self.generic_visit(node)

    def note_fed(self, node):
        """Which parameters of a direct helper this call hands tensors."""
        f = node.func
        if not isinstance(f, ast.Name) or f.id not in self.helpers:
            return
        pos, names, rest = self.helpers[f.id]
        seen = self.fed_seen.setdefault(f.id, set())
        for i, a in enumerate(node.args):
            if isinstance(a, ast.Starred):
                seen.update(names)
            elif self.tensorish(a):
                seen.add(pos[i] if i < len(pos) else rest)
        for k in node.keywords:
            if k.arg is None:
                seen.update(names)
            elif self.tensorish(k.value):
                seen.add(k.arg if k.arg in names else rest)

    def hands_tensor(self, node):
        return any(self.tensorish(a) for a in node.args) or \
            any(self.tensorish(k.value) for k in node.keywords)

    def check_call(self, node):
        f = node.func
        if isinstance(f, ast.Subscript):        # kernel[grid](...)
            if dotted(f.value) is None:
                self.flag(node, "calls what an index of a container or a "
                          "call returns; launch kernels as kernel[grid](...)")
            return
        name = dotted(f)
        if name is None:
            if isinstance(f, ast.Attribute):
                self.check_method(node, f.attr)
            return
        full = self.resolve(name)
        if full is not None:
            if full.startswith("torch."):
                api = full[len("torch."):]
                if api not in TORCH_OK and full not in self.allowed:
                    self.flag(node, "calls %s, a library kernel this task "
                              "forbids (allowed: allocation, views and "
                              "metadata%s)" % (full, self.allowed_note()))
            elif full.startswith("triton.ops") or full.startswith("triton.testing"):
                self.flag(node, "calls %s, which this task forbids" % full)
            elif full.startswith("math.") and self.hands_tensor(node):
                self.flag(node, "hands a tensor to %s, which computes with "
                          "it outside a Triton kernel (a library kernel)"
                          % full)
            return
        if "." not in name:
            if name in BUILTINS_FORBIDDEN:
                return          # flagged by visit_Name
            if name in self.defined:
                return
            if name in BUILTINS_OK:
                if name not in BUILTINS_PASS and self.hands_tensor(node):
                    self.flag(node, "hands a tensor to %s(), which computes "
                              "with it outside a Triton kernel (a library "
                              "kernel)" % name)
                return
            self.flag(node, "calls %s, which is neither defined here nor "
                      "allowed" % name)
            return
        self.check_method(node, name.rsplit(".", 1)[1])

    def check_method(self, node, meth):
        if meth in METHODS_OK or "Tensor." + meth in self.allowed:
            return
        self.flag(node, "calls the method .%s(), which this task forbids "
                  "(tensor methods are limited to views and metadata%s)"
                  % (meth, self.allowed_note()))

    def allowed_note(self):
        return "; the task allows also " + ", ".join(sorted(self.allowed)) \
            if self.allowed else ""

    # -- functions --

    def visit_FunctionDef(self, node):
        jit = is_jit(node, self.aliases)
        saved = self.tainted
        if not jit:
            # A host function's tensors: the entry's first parameter (its
            # second is the list of int params); any parameter of another
            # function, which may be handed a tensor.
            self.tainted = set(saved)
            params = node.args.args + node.args.kwonlyargs
            if node.name == self.entry:
                params = params[:1]
            elif node.name in self.helpers:
                fed = self.fed.get(node.name, set())
                params = [a for a in params if a.arg in fed]
            for a in params:
                self.tainted.add(a.arg)
            if node.args.vararg and node.name != self.entry:
                self.tainted.add(node.args.vararg.arg)
        saved_meta, saved_fn = self.meta_keys, self.function
        self.function = node.name
        if not jit and node.name in self.grids and node.args.args:
            self.meta_keys = dict(saved_meta)
            self.meta_keys[node.args.args[0].arg] = self.grids[node.name]
        for d in node.decorator_list:
            self.visit(d)
        self.in_jit += jit
        for st in node.body:
            self.visit(st)
        self.in_jit -= jit
        self.tainted, self.meta_keys = saved, saved_meta
        self.function = saved_fn

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Return(self, node):
        if not self.in_jit and self.function and node.value is not None \
                and self.tensorish(node.value):
            self.returns_seen.add(self.function)
        self.generic_visit(node)

    def visit_Lambda(self, node):
        # Its parameters may be handed tensors, as a function's may.
        saved, saved_meta = self.tainted, self.meta_keys
        self.tainted = set(saved)
        a = node.args
        for p in a.posonlyargs + a.args + a.kwonlyargs:
            self.tainted.add(p.arg)
        for p in (a.vararg, a.kwarg):
            if p is not None:
                self.tainted.add(p.arg)
        if id(node) in self.grids and a.args:
            self.meta_keys = dict(saved_meta)
            self.meta_keys[a.args[0].arg] = self.grids[id(node)]
        for d in a.defaults + [d for d in a.kw_defaults if d is not None]:
            self.visit(d)
        self.visit(node.body)
        self.tainted, self.meta_keys = saved, saved_meta


def check_module(path, src, own, allowed, forbid, findings, entry):
    try:
        text = src.decode("utf-8")
    except UnicodeDecodeError as e:
        findings.append("%s: is not UTF-8 text (%s)" % (path, e))
        return
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as e:
        findings.append("%s:%s: %s" % (path, e.lineno or 0, e.msg))
        return
    if not forbid:
        return
    # Passes until nothing more is learnt: every name that ever holds a
    # tensor (a global or an object's attribute set in one function and
    # read in another) and which parameters of the helpers only called
    # directly are handed tensors; then the pass that reports.  Each pass
    # learns at least one more name, so they end.
    ever, fed, returns = set(), {}, set()
    while True:
        p = Checker(path, own, allowed, [], entry)
        p.tainted, p.fed, p.returns = set(ever), fed, returns
        run_checker(p, tree)
        grown = {f: fed.get(f, set()) | s for f, s in p.fed_seen.items()}
        if p.ever_tainted <= ever and p.returns_seen <= returns and \
                all(grown[f] == fed.get(f, set()) for f in grown):
            break
        ever |= p.ever_tainted
        returns = returns | p.returns_seen
        fed = {**fed, **grown}
    c = Checker(path, own, allowed, findings, entry)
    c.tainted, c.fed, c.returns = set(ever), fed, returns
    run_checker(c, tree)


def constexpr_params(tree):
    """{kernel name: its parameters annotated constexpr} of the module's
    Triton kernels."""
    out = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef):
            names = {a.arg for a in n.args.args + n.args.kwonlyargs
                     if a.annotation is not None and
                     (dotted(a.annotation) or "").endswith("constexpr")}
            if names:
                out[n.name] = names
    return out


def launch_grids(tree):
    """{function name, or lambda id: constant keys} of the functions and
    lambdas that are only ever a launch's grid (kernel[lambda meta: ...]
    (...), or a name bound once to a lambda or a def and read nowhere but
    as kernel[NAME](...)); the keys are the constexpr parameters common
    to every kernel it is the grid of."""
    consts = constexpr_params(tree)
    grid_slots, loads, bound = {}, {}, {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript):
            kernel = (dotted(n.func.value) or "").rsplit(".", 1)[-1]
            grid_slots[id(n.func.slice)] = consts.get(kernel, set())
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            loads.setdefault(n.id, []).append(id(n))
        if isinstance(n, ast.FunctionDef):
            bound.setdefault(n.name, []).append(None)
        if isinstance(n, ast.Assign):
            for t in n.targets:
                for name in target_names(t):
                    bound.setdefault(name, []).append(
                        n.value if isinstance(n.value, ast.Lambda) and
                        isinstance(t, ast.Name) else False)
    grids = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Lambda) and id(n) in grid_slots:
            grids[id(n)] = grid_slots[id(n)]
    for name, values in bound.items():
        uses = loads.get(name, [])
        if len(values) != 1 or values[0] is False or not uses or \
                not all(u in grid_slots for u in uses):
            continue
        keys = set.intersection(*(grid_slots[u] for u in uses))
        grids[name if values[0] is None else id(values[0])] = keys
    return grids


def direct_helpers(tree, entry):
    """{name: (positional parameters, every parameter, the name of *args
    or **kwargs)} of the functions defined once, not as methods, and used
    only by calling them by name in this module (so every call that can
    hand them a tensor is seen); a function used nowhere here may be
    called from another module and is not one."""
    defs, methods, assigned, called, loads = {}, set(), set(), set(), {}
    for n in ast.walk(tree):
        if isinstance(n, ast.ClassDef):
            methods.update(s.name for s in n.body
                           if isinstance(s, (ast.FunctionDef,
                                             ast.AsyncFunctionDef)))
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs.setdefault(n.name, []).append(n)
        elif isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                assigned.update(target_names(t))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            called.add(id(n.func))
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            loads.setdefault(n.id, []).append(id(n))
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            assigned.update(n.names)
    out = {}
    for name, nodes in defs.items():
        uses = loads.get(name, [])
        if len(nodes) != 1 or name == entry or name in methods or \
                name in assigned or not uses or \
                not all(u in called for u in uses):
            continue
        a = nodes[0].args
        pos = [p.arg for p in a.posonlyargs + a.args]
        every = pos + [p.arg for p in a.kwonlyargs] + \
            [p.arg for p in (a.vararg, a.kwarg) if p is not None]
        rest = (a.vararg or a.kwarg).arg if (a.vararg or a.kwarg) else None
        out[name] = (pos, set(every), rest)
    return out


def run_checker(c, tree):
    c.helpers = direct_helpers(tree, c.entry)
    c.grids = launch_grids(tree)
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            c.reached.add(id(n.func))
        elif isinstance(n, ast.Attribute):
            c.reached.add(id(n.value))
    for st in tree.body:
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            c.defined.add(st.name)
        if isinstance(st, ast.Assign):
            for t in st.targets:
                if isinstance(t, ast.Name):
                    c.defined.add(t.id)
    # Imports first, wherever they are, so that names resolve.
    for n in ast.walk(tree):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            c.visit(n)
    for st in tree.body:
        if not isinstance(st, (ast.Import, ast.ImportFrom)):
            c.visit(st)


def read_bundle(data):
    """{path: bytes} of a bundle (arena_runner_py.parse_bundle's format)."""
    files, pos = {}, 0
    lines = data.split(b"\n", 2)
    if not lines or lines[0] != b"arena-pybundle 1":
        raise ValueError("not an arena Python bundle")
    while pos < len(data):
        end = data.index(b"\n", pos)
        words = data[pos:end].decode().split(" ")
        pos = end + 1
        if words[0] == "file":
            n = int(words[2])
            files[words[1]] = data[pos:pos + n]
            pos += n + 1
        elif words[0] == "ext":
            pos += int(words[2]) + 1    # a compiled module: nothing to parse
        elif words[0] == "end":
            break
    return files


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    forbid, allowed, entry, i = False, set(), "launch", 2
    while i < len(argv):
        if argv[i] == "--forbid-library-calls":
            forbid = True
        elif argv[i] == "--entry" and i + 1 < len(argv):
            i += 1
            entry = argv[i]
        elif argv[i] == "--allow" and i + 1 < len(argv):
            i += 1
            allowed.add(argv[i])
        else:
            sys.stderr.write(__doc__)
            return 2
        i += 1
    with open(argv[1], "rb") as f:
        files = read_bundle(f.read())
    own = {p[:-3] for p in files if p.endswith(".py")}
    findings = []
    for path in sorted(files):
        check_module(path, files[path], own, allowed, forbid, findings, entry)
    findings = list(dict.fromkeys(findings))
    for line in findings[:40]:
        print(line)
    if len(findings) > 40:
        print("... and %d more" % (len(findings) - 40))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
