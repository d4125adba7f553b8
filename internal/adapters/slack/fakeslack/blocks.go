package fakeslack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Slack's limits, from the Block Kit reference. Lengths count characters.
const (
	maxMessageText   = 40000
	maxMessageBlocks = 50
	maxViewBlocks    = 100
	maxSectionText   = 3000
	maxSectionFields = 10
	maxFieldText     = 2000
	maxHeaderText    = 150
	maxMarkdownText  = 12000 // cumulative over the markdown blocks of a payload
	maxContextElems  = 10
	maxActionsElems  = 25
	maxButtonText    = 75
	maxButtonValue   = 2000
	maxID            = 255 // action_id, block_id, callback_id
	maxLabelText     = 2000
	maxViewTitle     = 24
	maxViewMetadata  = 3000
)

// checkText fails with msg_too_long past Slack's limit on message text.
func checkText(text string) *apiError {
	if utf8.RuneCountInString(text) > maxMessageText {
		return fail("msg_too_long")
	}
	return nil
}

// checkBlocks parses a blocks parameter and checks it against Block Kit's
// limits. It returns the compacted JSON array, or nil for an absent or empty
// one; malformed JSON fails with invalid_blocks_format and a limit broken
// with invalid_blocks, each broken limit described in the messages the way
// Slack describes them.
func checkBlocks(raw string, maxBlocks int) (json.RawMessage, *apiError) {
	if raw == "" {
		return nil, nil
	}
	var blocks []any
	if err := json.Unmarshal([]byte(raw), &blocks); err != nil {
		return nil, fail("invalid_blocks_format", "[ERROR] "+err.Error())
	}
	if len(blocks) == 0 {
		return nil, nil
	}
	var c checker
	c.blocks("/blocks", blocks, maxBlocks)
	if len(c.msgs) > 0 {
		return nil, fail("invalid_blocks", c.msgs...)
	}
	var buf bytes.Buffer
	json.Compact(&buf, []byte(raw))
	return buf.Bytes(), nil
}

// checkView checks the view of a views.* request, failing with
// invalid_arguments.
func checkView(view map[string]any) *apiError {
	var c checker
	if view == nil {
		return fail("invalid_arguments", "[ERROR] missing required field: view")
	}
	if s, _ := view["type"].(string); s == "" {
		c.errorf("/view/type", "missing required field: type")
	}
	for _, f := range []string{"title", "submit", "close"} {
		c.maxLen("/view/"+f+"/text", text(view[f]), maxViewTitle)
	}
	c.maxLen("/view/private_metadata", str(view["private_metadata"]), maxViewMetadata)
	c.maxLen("/view/callback_id", str(view["callback_id"]), maxID)
	blocks, _ := view["blocks"].([]any)
	c.blocks("/view/blocks", blocks, maxViewBlocks)
	if len(c.msgs) > 0 {
		return fail("invalid_arguments", c.msgs...)
	}
	return nil
}

// checker collects the limits a payload breaks.
type checker struct {
	msgs     []string
	markdown int
}

func (c *checker) errorf(pointer, format string, args ...any) {
	c.msgs = append(c.msgs, fmt.Sprintf("[ERROR] %s [json-pointer:%s]", fmt.Sprintf(format, args...), pointer))
}

func (c *checker) maxLen(pointer, s string, n int) {
	if utf8.RuneCountInString(s) > n {
		c.errorf(pointer, "must be less than %d characters", n+1)
	}
}

func (c *checker) maxItems(pointer string, items []any, n int) {
	if len(items) > n {
		c.errorf(pointer, "no more than %d items allowed", n)
	}
}

func (c *checker) blocks(pointer string, blocks []any, maxBlocks int) {
	c.maxItems(pointer, blocks, maxBlocks)
	for i, b := range blocks {
		p := fmt.Sprintf("%s/%d", pointer, i)
		block, _ := b.(map[string]any)
		typ := str(block["type"])
		if typ == "" {
			c.errorf(p, "missing required field: type")
			continue
		}
		c.maxLen(p+"/block_id", str(block["block_id"]), maxID)
		switch typ {
		case "section":
			c.maxLen(p+"/text/text", text(block["text"]), maxSectionText)
			fields, _ := block["fields"].([]any)
			c.maxItems(p+"/fields", fields, maxSectionFields)
			for j, f := range fields {
				c.maxLen(fmt.Sprintf("%s/fields/%d/text", p, j), text(f), maxFieldText)
			}
			c.element(p+"/accessory", block["accessory"])
		case "header":
			c.maxLen(p+"/text/text", text(block["text"]), maxHeaderText)
		case "markdown":
			c.markdown += utf8.RuneCountInString(str(block["text"]))
			if c.markdown > maxMarkdownText {
				c.errorf(p+"/text", "cumulative markdown text must be less than %d characters", maxMarkdownText+1)
			}
		case "context":
			elems, _ := block["elements"].([]any)
			c.maxItems(p+"/elements", elems, maxContextElems)
		case "actions":
			elems, _ := block["elements"].([]any)
			c.maxItems(p+"/elements", elems, maxActionsElems)
			for j, e := range elems {
				c.element(fmt.Sprintf("%s/elements/%d", p, j), e)
			}
		case "input":
			c.maxLen(p+"/label/text", text(block["label"]), maxLabelText)
			c.element(p+"/element", block["element"])
		}
	}
}

// element checks an interactive element; a nil one is fine.
func (c *checker) element(pointer string, e any) {
	el, _ := e.(map[string]any)
	if el == nil {
		return
	}
	c.maxLen(pointer+"/action_id", str(el["action_id"]), maxID)
	if str(el["type"]) == "button" {
		c.maxLen(pointer+"/text/text", text(el["text"]), maxButtonText)
		c.maxLen(pointer+"/value", str(el["value"]), maxButtonValue)
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// text returns the text of a text object, {"type":...,"text":...}.
func text(v any) string {
	obj, _ := v.(map[string]any)
	return str(obj["text"])
}

// ButtonValue returns the value of the button with actionID in a message's
// blocks (as stored by chat.postMessage or chat.update), or "" when there is
// none: tests read approval ids and the like back from it.
func ButtonValue(blocks json.RawMessage, actionID string) string {
	var bs []struct {
		Elements []struct {
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
		} `json:"elements"`
	}
	_ = json.Unmarshal(blocks, &bs)
	for _, b := range bs {
		for _, el := range b.Elements {
			if el.ActionID == actionID {
				return el.Value
			}
		}
	}
	return ""
}
