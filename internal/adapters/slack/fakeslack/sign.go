package fakeslack

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"
)

// Sign returns the headers Slack signs an HTTP-mode request with:
// X-Slack-Request-Timestamp (ts in Unix seconds) and X-Slack-Signature,
// "v0=" and the hex HMAC-SHA256 of "v0:<timestamp>:<body>" keyed by the
// signing secret. slack.NewSecretsVerifier accepts them when ts is within
// five minutes of now.
func Sign(secret string, ts time.Time, body []byte) http.Header {
	stamp := strconv.FormatInt(ts.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + stamp + ":"))
	mac.Write(body)
	h := http.Header{}
	h.Set("X-Slack-Request-Timestamp", stamp)
	h.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	return h
}
