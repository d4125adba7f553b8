package mcp

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/threadbot/threadbot/internal/core/executor"
)

// noContent is the text of a result that carries nothing.
const noContent = "(the tool returned no content)"

// convert turns a tool result into text for the model and attachments for
// the thread: text content is joined by newlines; images (inline, or
// embedded resources with an image type) and other binary resources become
// attachments with a one-line note; audio and resource links are
// summarised. Structured content is used when there is no other content.
func convert(tool string, res *sdk.CallToolResult) (string, []executor.Attachment) {
	var parts []string
	var atts []executor.Attachment
	attach := func(kind, name, mimeType string, data []byte) string {
		if name == "" {
			name = fmt.Sprintf("%s-%d%s", tool, len(atts)+1, extension(mimeType))
		}
		atts = append(atts, executor.Attachment{Kind: kind, Name: name, MIMEType: mimeType, Data: data})
		return fmt.Sprintf("[%s %s (%s, %d bytes) attached to the thread]", kind, name, orUnknown(mimeType), len(data))
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, attach("image", "", c.MIMEType, c.Data))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio (%s, %d bytes) not shown]", orUnknown(c.MIMEType), len(c.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, resourceLink(c))
		case *sdk.EmbeddedResource:
			parts = append(parts, embedded(c.Resource, attach))
		case nil:
		default:
			parts = append(parts, fmt.Sprintf("[content of type %T not shown]", c))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	if len(parts) == 0 {
		return noContent, nil
	}
	return strings.Join(parts, "\n"), atts
}

func resourceLink(c *sdk.ResourceLink) string {
	s := "[resource link: " + orUnknown(c.Name) + " <" + c.URI + ">"
	if c.MIMEType != "" {
		s += " " + c.MIMEType
	}
	if d := strings.TrimSpace(c.Description); d != "" {
		s += " — " + d
	}
	return s + "]"
}

// embedded renders an embedded resource: its text under a header, or its
// blob as an attachment.
func embedded(r *sdk.ResourceContents, attach func(kind, name, mimeType string, data []byte) string) string {
	if r == nil {
		return "[empty resource]"
	}
	if r.Blob == nil {
		return fmt.Sprintf("[resource <%s>]\n%s", r.URI, r.Text)
	}
	kind := "file"
	if strings.HasPrefix(r.MIMEType, "image/") {
		kind = "image"
	}
	name := path.Base(r.URI)
	if name == "." || name == "/" || strings.ContainsAny(name, ":?#") {
		name = ""
	}
	return attach(kind, name, r.MIMEType, r.Blob) + " from <" + r.URI + ">"
}

// extension is the file extension of common image and file types.
func extension(mimeType string) string {
	switch mimeType {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "image/svg+xml":
		return ".svg"
	case "application/pdf":
		return ".pdf"
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
