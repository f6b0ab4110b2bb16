package mcphttp

import (
	"net/http"
	"strings"
)

// acceptsEventStream reports whether the Accept header values admit
// text/event-stream; a request without Accept admits anything.
func acceptsEventStream(values []string) bool {
	if len(values) == 0 {
		return true
	}
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			mt, params, _ := strings.Cut(item, ";")
			mt = strings.TrimSpace(mt)
			if !strings.EqualFold(mt, "text/event-stream") && !strings.EqualFold(mt, "text/*") && mt != "*/*" {
				continue
			}
			if !qualityZero(params) {
				return true
			}
		}
	}
	return false
}

// qualityZero reports whether the media-range parameters params set q=0.
func qualityZero(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			v = strings.TrimSpace(v)
			return strings.Trim(v, "0.") == "" && v != ""
		}
	}
	return false
}

// accepts reports whether the Accept header allows the responses a POST
// (JSON or SSE) or a GET (SSE) may get. It is lenient: no Accept header, a
// wildcard, or either type for a POST will do.
func accepts(hdr http.Header, post bool) bool {
	values := hdr["Accept"]
	if len(values) == 0 {
		return true
	}
	for _, v := range values {
		for v != "" {
			var item string
			item, v, _ = strings.Cut(v, ",")
			if i := strings.IndexByte(item, ';'); i >= 0 {
				item = item[:i]
			}
			switch strings.ToLower(strings.TrimSpace(item)) {
			case "text/event-stream", "*/*", "text/*", "":
				return true
			case "application/json", "application/*":
				if post {
					return true
				}
			}
		}
	}
	return false
}
