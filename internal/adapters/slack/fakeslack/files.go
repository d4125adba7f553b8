package fakeslack

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"
)

// File is a file known to the server: uploaded through the upload v2 flow
// (files.getUploadURLExternal, the upload URL, files.completeUploadExternal)
// or seeded with AddFile.
type File struct {
	ID string
	// Name is the filename given to files.getUploadURLExternal.
	Name  string
	Title string
	// Length is the length the client declared; compare it with
	// len(Content) to catch a client that counts characters, not bytes.
	Length  int
	Content []byte
	// User is who uploaded the file: the bot for uploads through the API.
	User string
	// Uploaded reports that bytes arrived at the upload URL; Completed that
	// files.completeUploadExternal named the file.
	Uploaded  bool
	Completed bool
	// Channel, ThreadTS, InitialComment and MessageTS describe where
	// files.completeUploadExternal shared the file (the first channel, when
	// it named several).
	Channel        string
	ThreadTS       string
	InitialComment string
	MessageTS      string
	Created        time.Time
	// Downloads counts the times the bot token downloaded the file.
	Downloads int
}

// Files returns copies of the known files, in the order they were created.
func (s *Server) Files() []File {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []File
	for _, id := range s.fileOrder {
		f := *s.files[id]
		f.Content = append([]byte(nil), f.Content...)
		out = append(out, f)
	}
	return out
}

// AddFile stores a complete file uploaded by user, not shared anywhere, and
// returns it. Put its ID in a seeded Message's FileIDs to attach it; the
// message then lists it with a url_private the bot token can download.
func (s *Server) AddFile(user, name string, content []byte) File {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := &File{
		ID: s.nextID("F"), Name: name, Title: name, Length: len(content),
		Content: append([]byte(nil), content...), User: user,
		Uploaded: true, Completed: true, Created: time.Now(),
	}
	s.files[f.ID] = f
	s.fileOrder = append(s.fileOrder, f.ID)
	c := *f
	c.Content = append([]byte(nil), f.Content...)
	return c
}

// getUploadURL answers files.getUploadURLExternal with an upload URL on this
// server.
func (s *Server) getUploadURL(r *apiRequest) (map[string]any, *apiError) {
	name := r.get("filename")
	length, err := strconv.Atoi(r.get("length"))
	if name == "" || err != nil || length <= 0 {
		return nil, fail("invalid_arguments")
	}
	f := &File{ID: s.nextID("F"), Name: name, Title: name, Length: length, User: s.opts.BotUserID, Created: time.Now()}
	s.files[f.ID] = f
	s.fileOrder = append(s.fileOrder, f.ID)
	return map[string]any{"upload_url": s.URL() + "/upload/" + f.ID, "file_id": f.ID}, nil
}

// upload takes a file's bytes: a multipart form with the field "file", as
// slack-go sends, or the raw body.
func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var (
		data []byte
		err  error
	)
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		var part io.ReadCloser
		if part, _, err = r.FormFile("file"); err == nil {
			data, err = io.ReadAll(part)
			part.Close()
		}
	} else {
		data, err = io.ReadAll(r.Body)
	}
	if err != nil {
		http.Error(w, "fakeslack: upload: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	f := s.files[id]
	if f != nil && !f.Completed {
		f.Content, f.Uploaded = data, true
	}
	s.mu.Unlock()
	if f == nil {
		http.Error(w, "fakeslack: no upload URL "+id, http.StatusNotFound)
		return
	}
	s.logf("upload %s: %d bytes", id, len(data))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "OK - %d", len(data))
}

// completeUpload answers files.completeUploadExternal: each named file gets
// its title, and when a channel is given, one message from the bot shares
// them all (into thread_ts when set, with initial_comment as its text).
func (s *Server) completeUpload(r *apiRequest) (map[string]any, *apiError) {
	var summaries []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(r.get("files")), &summaries); err != nil || len(summaries) == 0 {
		return nil, fail("invalid_arguments", "[ERROR] files must be a non-empty JSON array")
	}
	var files []*File
	for _, sum := range summaries {
		f := s.files[sum.ID]
		if f == nil || !f.Uploaded || f.Completed {
			return nil, fail("file_not_found")
		}
		files = append(files, f)
	}
	comment := r.get("initial_comment")
	if e := checkText(comment); e != nil {
		return nil, e
	}
	blocks, e := checkBlocks(r.get("blocks"), maxMessageBlocks)
	if e != nil {
		return nil, e
	}
	var channels []string
	if c := r.get("channel_id"); c != "" {
		channels = append(channels, c)
	}
	for c := range strings.SplitSeq(r.get("channels"), ",") {
		if c != "" {
			channels = append(channels, c)
		}
	}
	out := []map[string]any{}
	var ids []string
	for i, f := range files {
		if summaries[i].Title != "" {
			f.Title = summaries[i].Title
		}
		f.Completed = true
		ids = append(ids, f.ID)
		out = append(out, map[string]any{"id": f.ID, "title": f.Title})
	}
	for i, channel := range channels {
		m := &Message{
			Channel: channel, TS: s.nextTS(), ThreadTS: r.get("thread_ts"),
			User: s.opts.BotUserID, BotID: s.opts.BotID,
			Text: comment, Blocks: blocks, FileIDs: append([]string(nil), ids...),
		}
		s.insert(m)
		if i == 0 {
			for _, f := range files {
				f.Channel, f.ThreadTS, f.InitialComment, f.MessageTS = channel, m.ThreadTS, comment, m.TS
			}
		}
	}
	return map[string]any{"files": out}, nil
}

// download serves a file's bytes at its url_private to the bot token.
func (s *Server) download(w http.ResponseWriter, r *http.Request) {
	bearer, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	s.mu.Lock()
	f := s.files[r.PathValue("id")]
	var data []byte
	if f != nil && bearer == s.opts.BotToken {
		data = append([]byte(nil), f.Content...)
		f.Downloads++
	}
	s.mu.Unlock()
	switch {
	case bearer != s.opts.BotToken:
		http.Error(w, "fakeslack: file downloads need the bot token", http.StatusForbidden)
	case f == nil:
		http.Error(w, "fakeslack: no such file", http.StatusNotFound)
	default:
		w.Header().Set("Content-Type", fileMimetype(f.Name))
		w.Write(data)
	}
}

// fileJSON renders f as Slack lists it in a message. The caller holds s.mu.
func (s *Server) fileJSON(f *File) map[string]any {
	ext := strings.TrimPrefix(path.Ext(f.Name), ".")
	u := fmt.Sprintf("%s/files/%s/%s", s.URL(), f.ID, url.PathEscape(f.Name))
	return map[string]any{
		"id":                   f.ID,
		"created":              f.Created.Unix(),
		"timestamp":            f.Created.Unix(),
		"name":                 f.Name,
		"title":                f.Title,
		"mimetype":             fileMimetype(f.Name),
		"filetype":             ext,
		"user":                 f.User,
		"mode":                 "hosted",
		"size":                 len(f.Content),
		"url_private":          u,
		"url_private_download": u + "?download=1",
	}
}

func fileMimetype(name string) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}
