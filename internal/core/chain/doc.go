// Package chain owns the LLM–tool loop of seed 004: rounds of tool calls
// executed through an executor.Executor, the final-answer request when the
// loop stops early, the serialisable Checkpoint a turn waiting for a person
// can be resumed from, and the MessageFlowFormatter that compresses a whole
// turn into one assistant message (hint + natural flow).
//
// It declares the Model interface it needs and imports core/llm and
// core/executor only.
package chain
