"""Example script for weather.tool.json (runner "script": it dispatches itself)."""
import json
import sys


def get_forecast(city, days=3):
    return "\n".join("%s day %d: sunny, 21 °C" % (city, d + 1) for d in range(days))


def alert(city, message):
    return {"success": False, "result": "alerts for %s are not set up" % city}


if __name__ == "__main__":
    args = json.load(sys.stdin)
    fn = {"get_forecast": get_forecast, "alert": alert}[sys.argv[1]]
    out = fn(**args)
    print(json.dumps(out if isinstance(out, dict) else {"success": True, "result": out}, ensure_ascii=False))
