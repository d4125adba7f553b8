package openai

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestInsertZeroTemperature(t *testing.T) {
	tests := []struct {
		body    string
		want    string
		wantErr error
	}{
		{body: `{"model":"m","stream":true}`, want: `{"temperature":0,"model":"m","stream":true}`},
		{body: `{}`, want: `{"temperature":0}`},
		{body: " { } \n", want: `{"temperature":0 }`},
		{body: `[1]`, wantErr: ErrInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			err = insertZeroTemperature(req)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != nil {
				return
			}
			got, _ := io.ReadAll(req.Body)
			again, _ := req.GetBody()
			replay, _ := io.ReadAll(again)
			if string(got) != tt.want || string(replay) != tt.want || req.ContentLength != int64(len(tt.want)) {
				t.Errorf("body %q, replay %q, length %d; want %q", got, replay, req.ContentLength, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("%q is not JSON", got)
			}
		})
	}
}
