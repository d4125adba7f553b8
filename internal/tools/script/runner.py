# threadbot's runner for Python tools with "runner": "module".
#
# Run as: python3 -c RUNNER SCRIPT.py FUNCTION, with the JSON arguments on
# stdin. It imports SCRIPT.py as a module (so its `if __name__ == "__main__"`
# block does not run), calls FUNCTION(**arguments) and prints one JSON line:
# {"success": true, "result": <return value>} or {"success": false,
# "result": "<error>"}. What the function prints goes to stderr, unless it
# returns None: then the printed text is the result. A function may also
# return the protocol object {"success": ..., "result": ..., "formattedText":
# ...} itself.
import sys

# python3 -c puts the working directory (the session directory, which the
# model can write to) first on sys.path; drop it before importing anything,
# so a json.py planted there cannot run in place of the standard library.
if sys.path and sys.path[0] in ("", "."):
    del sys.path[0]

import asyncio  # noqa: E402
import contextlib  # noqa: E402
import importlib.util  # noqa: E402
import inspect  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import traceback  # noqa: E402


def _load(path):
    name = os.path.splitext(os.path.basename(path))[0]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot import %s" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _call(path, entry, args):
    module = _load(path)
    fn = getattr(module, entry, None)
    if entry.startswith("_") or not callable(fn):
        raise LookupError("%s has no public function %r" % (os.path.basename(path), entry))
    result = fn(**args)
    if inspect.isawaitable(result):
        result = asyncio.run(result)
    return result


def _is_answer(value):
    return isinstance(value, dict) and isinstance(value.get("success"), bool) and "result" in value


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: python3 -c RUNNER SCRIPT.py FUNCTION < arguments.json\n")
        return 2
    path, entry = sys.argv[1], sys.argv[2]
    raw = sys.stdin.read()
    try:
        args = json.loads(raw) if raw.strip() else {}
    except ValueError as e:
        sys.stderr.write("arguments are not JSON: %s\n" % e)
        return 2
    if not isinstance(args, dict):
        sys.stderr.write("arguments must be a JSON object\n")
        return 2
    real_stdout = sys.stdout
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            result = _call(path, entry, args)
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # SystemExit too: the call failed.
        sys.stderr.write(printed.getvalue())
        traceback.print_exc(file=sys.stderr)
        if isinstance(e, SystemExit):
            message = "the function called sys.exit(%r)" % (e.code,)
        else:
            message = "%s: %s" % (type(e).__name__, e)
        answer = {"success": False, "result": message}
    else:
        text = printed.getvalue()
        if result is None and text:
            answer = {"success": True, "result": text}
        else:
            sys.stderr.write(text)
            answer = result if _is_answer(result) else {"success": True, "result": result}
    real_stdout.write(json.dumps(answer, ensure_ascii=False, default=str))
    real_stdout.write("\n")
    real_stdout.flush()
    return 0


sys.exit(main())
