// Package script owns custom script tools (seed 002): tool groups described
// by .tool.json descriptors in a directory, each backed by one Python, bash
// or PowerShell script; the loading and reloading of that directory; the
// running of a call; and the generation of descriptors from Python modules.
//
// # Descriptor format
//
// A descriptor FILE.tool.json describes one tool group:
//
//	{
//	  "name": "weather",                  // group name; default: FILE
//	  "rulePrompt": "Use the weather tools for forecasts.",
//	  "skillRules": [{"name": "units", "desc": "...", "prompt": "...", "when": "...", "alwaysLoad": false}],
//	  "lastModified": "2026-01-02T15:04:05Z",  // or Unix milliseconds: 1767366245000
//	  "generated": false,                 // true: written by `threadbot tools import`
//	  "script": "weather.py",             // relative to the descriptor; default: FILE.py, FILE.sh or FILE.ps1
//	  "runner": "script",                 // "script" (default) or "module" (.py only)
//	  "timeoutMs": 30000,                 // default: Options.Timeout (30 s)
//	  "tools": [{
//	    "type": "function",
//	    "function": {
//	      "name": "get_forecast",
//	      "description": "Forecast for a city.",
//	      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
//	    },
//	    "entry": "get_forecast",          // function passed to the script; default: function.name
//	    "permission": {"executionPolicy": "auto", "resultApprovalPolicy": "never"},
//	    "declaredReturnType": {"type": "string", "note": "one line per day"}
//	  }]
//	}
//
// (JSON has no comments; they only explain the fields here.) Unknown fields
// are errors, so a misspelt key is reported rather than ignored. A tool
// without "permission" is ask-always before it runs and never asks about its
// result: a script is arbitrary code. Group names are 1-64 of [A-Za-z0-9_.-],
// tool names 1-64 of [A-Za-z0-9_-], unique across the directory and distinct
// from the executor's own (ReadVar, ListVars, WriteVar, RemoveVars, vars).
// testdata/weather.tool.json is a complete example.
//
// # Calls
//
// A call runs the interpreter chosen by the script's extension (.py:
// python3, .sh: bash, .ps1: pwsh -NoProfile -NonInteractive -File, which is
// optional) directly, never through a shell:
//
//	interpreter SCRIPT ENTRY                    runner "script"
//	python3 -c RUNNER SCRIPT ENTRY              runner "module"
//
// with the arguments as one JSON object on stdin, the session's sandbox
// directory as the working directory, a minimal environment (PATH, HOME =
// the sandbox, LANG, plus Options.Env: never the bot's tokens or keys), and
// a time limit after which the script's whole process group is killed. The
// script prints either {"success": true|false, "result": any,
// "formattedText"?: string} or plain text, which is the result. success
// false is an error whose message is formattedText, else the result. A
// non-zero exit code is an error that reports the code and stderr; stderr
// of a successful call is appended to its result under "[stderr]".
//
// The embedded module runner (runner.py) imports SCRIPT as a module, so its
// `if __name__ == "__main__"` block does not run, calls ENTRY(**arguments)
// and prints the protocol object: the return value as the result (printed
// text when it returns None), an exception as success false with its
// traceback on stderr. Generated descriptors use it, so a module needs no
// dispatch code. A hand-written Python descriptor uses runner "script"
// unless it says "module"; then the script dispatches on sys.argv[1] and
// reads json.load(sys.stdin) itself.
//
// # Generated descriptors
//
// ImportPython (`threadbot tools import FILE.py`) writes FILE.tool.json from
// the module's public functions, introspected by an embedded Python script
// (introspect.py, Python 3.9 or newer) that imports the module: type hints
// become JSON Schema (int, float, str, bool, list[...], tuple[...],
// set[...], dict[str, ...], Optional, unions, Literal, Enum, TypedDict,
// Annotated[..., "description"]), parameters with defaults are optional,
// the docstring's first paragraph is the description and its Google
// ("Args:"), NumPy ("Parameters" and a dashed rule) or Sphinx (":param x:")
// sections describe the parameters. Such a descriptor says "generated":
// true and records the module's modification time in lastModified; Load
// regenerates it when the module is newer, keeping the name, rule prompt,
// skill rules, time limit and permissions set in the old one.
//
// Among threadbot packages it imports only core/executor and core/vars.
package script
