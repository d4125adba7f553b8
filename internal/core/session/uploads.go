package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// UploadsDir is the folder of a thread's sandbox that holds the files
// people attach to their messages.
const UploadsDir = "uploads"

// saveUploads writes attached files into the thread's sandbox under
// uploads/ and returns text with a note telling the model where they are.
// The writes go through an os.Root on the sandbox, so a symlink a tool
// left there cannot lead them outside it. A file that cannot be written
// is named in the note with the reason, so the model does not look for it.
func (m *Manager) saveUploads(k Key, files []File, text string) string {
	var lines []string
	root, err := m.uploadsRoot(k)
	if err != nil {
		m.lg.Error("save attached files", "err", err)
		for _, f := range files {
			lines = append(lines, fmt.Sprintf("- %s: not saved (the sandbox's %s folder is not usable)", safeFileName(f.Name), UploadsDir))
		}
		return withFileNote(text, lines)
	}
	defer root.Close()
	for _, f := range files {
		name, err := writeUnique(root, safeFileName(f.Name), f.Data)
		if err != nil {
			m.lg.Error("save attached file", "file", f.Name, "err", err)
			lines = append(lines, fmt.Sprintf("- %s: not saved (%s)", safeFileName(f.Name), "write failed"))
			continue
		}
		kind := ""
		if f.MIMEType != "" {
			kind = ", " + f.MIMEType
		}
		lines = append(lines, fmt.Sprintf("- %s/%s (%s%s)", UploadsDir, name, humanSize(len(f.Data)), kind))
	}
	return withFileNote(text, lines)
}

// uploadsRoot opens the thread's sandbox as an os.Root with its uploads
// folder created.
func (m *Manager) uploadsRoot(k Key) (*os.Root, error) {
	sandbox := filepath.Join(m.opts.WorkspaceRoot, k.ID())
	if err := os.MkdirAll(sandbox, 0o700); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(sandbox)
	if err != nil {
		return nil, err
	}
	if err := root.MkdirAll(UploadsDir, 0o700); err != nil {
		root.Close()
		return nil, err
	}
	if fi, err := root.Lstat(UploadsDir); err != nil || !fi.IsDir() {
		root.Close()
		return nil, fmt.Errorf("%s is not a folder", UploadsDir)
	}
	return root, nil
}

func withFileNote(text string, lines []string) string {
	note := "[Files attached to this message, saved in your sandbox:\n" + strings.Join(lines, "\n") + "]"
	if strings.TrimSpace(text) == "" {
		return note
	}
	return text + "\n\n" + note
}

// writeUnique writes data to uploads/name in root, or name-2, name-3…
// when taken, and returns the name used. It never follows or replaces an
// existing entry.
func writeUnique(root *os.Root, name string, data []byte) (string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i < 1000; i++ {
		try := name
		if i > 1 {
			try = fmt.Sprintf("%s-%d%s", stem, i, ext)
		}
		path := UploadsDir + "/" + try
		f, err := root.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = root.Remove(path)
			return "", err
		}
		return try, nil
	}
	return "", fmt.Errorf("too many files named %s", name)
}

// safeFileName keeps a file name without path separators, control and
// format characters, line separators or a leading dot, at most 100 bytes;
// "file" when nothing is left.
func safeFileName(name string) string {
	name = strings.Map(func(r rune) rune {
		switch {
		case r == '/' || r == '\\' || r == ':':
			return '_'
		case unicode.IsControl(r), unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			return -1 // control, format (bidi overrides, zero-width) and line breaks
		}
		return r
	}, name)
	name = strings.TrimLeft(strings.TrimSpace(name), ".")
	if len(name) > 100 {
		ext := filepath.Ext(name)
		if len(ext) > 20 {
			ext = ""
		}
		cut := 100 - len(ext)
		for cut > 0 && !utf8Start(name[cut]) {
			cut--
		}
		name = name[:cut] + ext
	}
	if name == "" {
		return "file"
	}
	return name
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func humanSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
