# threadbot's introspection of a Python module for `threadbot tools import`.
#
# Run as: python3 -c INTROSPECT MODULE.py. It imports the module (running its
# top-level code, but not its `if __name__ == "__main__"` block) and prints
# one JSON object describing its public functions: name, docstring,
# signature, a JSON Schema per parameter built from the type hints, and
# whether the parameter has a default. Docstrings are parsed by threadbot.
import sys

# Never import from the working directory (see runner.py).
if sys.path and sys.path[0] in ("", "."):
    del sys.path[0]

import collections.abc  # noqa: E402
import enum  # noqa: E402
import importlib.util  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import types  # noqa: E402
import typing  # noqa: E402

_ARRAYS = (list, tuple, set, frozenset, collections.abc.Sequence, collections.abc.MutableSequence,
           collections.abc.Iterable, collections.abc.Collection, collections.abc.Set, collections.abc.MutableSet)
_UNIONS = (typing.Union, getattr(types, "UnionType", typing.Union))  # X | Y since Python 3.10
_OBJECTS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)


def _json_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return None


def _enum_schema(values):
    schema = {"enum": list(values)}
    kinds = {_json_type(v) for v in values}
    if len(kinds) == 1 and None not in kinds:
        schema["type"] = kinds.pop()
    return schema


def _nullable(schema):
    t = schema.get("type")
    if isinstance(t, str):
        schema["type"] = [t, "null"]
        if "enum" in schema:
            schema["enum"].append(None)
        return schema
    if not schema:
        return schema
    return {"anyOf": [schema, {"type": "null"}]}


def schema_of(tp, notes):
    """Returns the JSON Schema of a type hint; notes collects what is lost."""
    if tp is inspect.Parameter.empty or tp is typing.Any or tp is object:
        return {}
    if tp is None or tp is type(None):
        return {"type": "null"}
    if isinstance(tp, str):
        notes.append("unresolved type %r" % tp)
        return {}
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is not None and origin is getattr(typing, "Annotated", None):
        schema = schema_of(args[0], notes)
        texts = [a for a in args[1:] if isinstance(a, str)]
        if texts:
            schema["description"] = " ".join(texts)
        return schema
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is float:
        return {"type": "number"}
    if tp is str:
        return {"type": "string"}
    if origin in _UNIONS:
        members = [a for a in args if a is not type(None)]
        nullable = len(members) < len(args)
        if len(members) == 1:
            schema = schema_of(members[0], notes)
        else:
            schema = {"anyOf": [schema_of(a, notes) for a in members]}
        return _nullable(schema) if nullable else schema
    if origin is typing.Literal:
        return _enum_schema(args)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_schema([m.value for m in tp])
    if getattr(typing, "is_typeddict", lambda t: False)(tp):
        hints = typing.get_type_hints(tp)
        required = sorted(getattr(tp, "__required_keys__", hints.keys()))
        return {"type": "object",
                "properties": {k: schema_of(v, notes) for k, v in hints.items()},
                "required": required}
    if tp in _ARRAYS or origin in _ARRAYS:
        schema = {"type": "array"}
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            schema["prefixItems"] = [schema_of(a, notes) for a in args]
            schema["minItems"] = schema["maxItems"] = len(args)
        elif args:
            items = schema_of(args[0], notes)
            if items:
                schema["items"] = items
        if origin in (set, frozenset, collections.abc.Set, collections.abc.MutableSet) or tp in (set, frozenset):
            schema["uniqueItems"] = True
        return schema
    if tp in _OBJECTS or origin in _OBJECTS:
        schema = {"type": "object"}
        if len(args) == 2:
            values = schema_of(args[1], notes)
            if values:
                schema["additionalProperties"] = values
        return schema
    notes.append("type %s is not described to the model" % getattr(tp, "__name__", repr(tp)))
    return {}


def _type_text(tp):
    if tp is inspect.Parameter.empty:
        return ""
    if isinstance(tp, type) and not typing.get_args(tp):
        return tp.__name__
    return str(tp).replace("typing.", "")


def _jsonable(value):
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


def describe(name, fn):
    sig = inspect.signature(fn)
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # a forward reference that does not resolve
        hints = dict(getattr(fn, "__annotations__", {}))
    notes = []
    params = []
    extra = False
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            extra = True
            continue
        if p.kind is p.VAR_POSITIONAL:
            continue
        if p.kind is p.POSITIONAL_ONLY:
            return None, "parameter %r is positional-only; tools are called with keyword arguments" % p.name
        tp = hints.get(p.name, p.annotation)
        schema = schema_of(tp, notes)
        if not schema and p.default is not p.empty and p.default is not None:
            kind = _json_type(p.default)
            if kind:
                schema = {"type": kind}
        param = {"name": p.name, "schema": schema, "required": p.default is p.empty, "type": _type_text(tp)}
        if p.default is not p.empty and _jsonable(p.default):
            param["default"] = p.default
        params.append(param)
    ret = hints.get("return", sig.return_annotation)
    return {
        "name": name,
        "doc": inspect.getdoc(fn) or "",
        "signature": name + str(sig),
        "params": params,
        "extraArgs": extra,
        "returns": _type_text(ret),
        "returnSchema": schema_of(ret, []) if ret is not inspect.Parameter.empty else None,
        "notes": notes,
        "line": fn.__code__.co_firstlineno if hasattr(fn, "__code__") else 0,
    }, None


def main():
    path = sys.argv[1]
    name = os.path.splitext(os.path.basename(path))[0]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # what the module prints is not our answer
    spec.loader.exec_module(module)
    sys.stdout = real_stdout
    public = getattr(module, "__all__", None)
    functions, skipped = [], []
    for attr, fn in vars(module).items():
        if attr.startswith("_") or not inspect.isfunction(fn):
            continue
        if public is not None and attr not in public:
            continue
        if public is None and fn.__module__ != module.__name__:
            continue  # imported from elsewhere
        info, why = describe(attr, fn)
        if info is None:
            skipped.append({"name": attr, "reason": why})
        else:
            functions.append(info)
    functions.sort(key=lambda f: f["line"])
    json.dump({"module": name, "doc": inspect.getdoc(module) or "", "functions": functions, "skipped": skipped},
              real_stdout, ensure_ascii=False, default=str)


main()
