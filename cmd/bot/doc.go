// Command threadbot is the bot: it loads the configuration, opens storage,
// builds the tool groups, the model client and the session runtime, and
// runs every chat adapter whose credentials are configured (the console
// when none is).
//
// A short tour of the code:
//
//   - internal/core/llm: provider-neutral model types.
//   - internal/core/vars: the per-session VariableSystem and $VAR_REF.
//   - internal/core/executor: tools, groups, the Execute pipeline, approvals.
//   - internal/core/chain: the LLM–tool loop, checkpoints, the compressed
//     message format.
//   - internal/core/session: threads as sessions, the turn runner, approvals
//     that survive restarts.
//   - internal/tools/*: the built-in tool groups.
//   - internal/adapters/*: the model client (openai) and chat platforms
//     (console, slack; Discord is still to come). internal/adapters/slack/fakeslack
//     is the fake Slack its tests run against.
//   - internal/storage: SQLite storage.
//   - config: the configuration file and environment.
//
// Only this package imports config.
package main
