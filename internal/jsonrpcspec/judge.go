package jsonrpcspec

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/rpcgen/rpcgen/runtime"
)

// The judges below run the specification's examples and the bad messages
// over any transport a test can reach as a runtime.Framer: the raw client side
// of one connection to a server of NewSpecHandler. Package tests use them
// over stdio, TCP and Unix sockets; the WebSocket module over WebSocket.

// BadMessages are malformed or invalid messages, each of which must get an
// error reply with Code while the connection goes on serving.
var BadMessages = []struct {
	Name, Msg string
	Code      int64
}{
	{"invalid JSON", `{"jsonrpc":"2.0","method":"subtract",`, runtime.CodeParseError},
	{"wrong param type", `{"jsonrpc":"2.0","method":"subtract","params":["a",1],"id":"types"}`, runtime.CodeInvalidParams},
	{"wrong named type", `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":true,"subtrahend":1},"id":"named"}`, runtime.CodeInvalidParams},
	{"too many params", `{"jsonrpc":"2.0","method":"subtract","params":[1,2,3],"id":"count"}`, runtime.CodeInvalidParams},
	{"unknown field", `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":1,"subtrahend":2,"extra":3},"id":"extra"}`, runtime.CodeInvalidParams},
	{"unknown method", `{"jsonrpc":"2.0","method":"nope","id":"nope"}`, runtime.CodeMethodNotFound},
	{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"method\":\"subtract\",\"params\":[\"\xff\"],\"id\":\"utf8\"}", runtime.CodeParseError},
	{"deep nesting", `{"jsonrpc":"2.0","method":"subtract","params":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `,"id":"deep"}`, runtime.CodeInvalidRequest},
	{"oversized", `{"jsonrpc":"2.0","method":"subtract","params":["` + strings.Repeat("x", 5<<20) + `"],"id":"big"}`, runtime.CodeInvalidRequest},
}

// sentinel is a call whose answer must come next after a message that gets no
// reply, proving that none came.
const sentinel = `{"jsonrpc":"2.0","method":"sum","params":[40,1,1],"id":"sentinel"}`

const sentinelAnswer = `{"jsonrpc":"2.0","result":42,"id":"sentinel"}`

// JudgeExamples sends each example to a fresh connection that dial returns,
// and then a sentinel call: the reply must be exactly what the specification
// shows, and where it shows none, the sentinel's answer must be the next
// message. The server handles requests concurrently, so the example's reply
// and the sentinel's may come in either order.
func JudgeExamples(t *testing.T, dial func(t *testing.T) runtime.Framer) {
	for _, ex := range Examples {
		t.Run(ex.Name, func(t *testing.T) {
			f := dial(t)
			defer f.Close()
			if err := f.WriteMessage([]byte(oneLine(ex.Request))); err != nil {
				t.Fatalf("write: %v", err)
			}
			if err := f.WriteMessage([]byte(sentinel)); err != nil {
				t.Fatalf("write the sentinel: %v", err)
			}
			var replies []string
			sentinelSeen := false
			for n := 0; n < 2 && !(ex.Reply == "" && sentinelSeen); n++ {
				got := read(t, f)
				if !sentinelSeen && sameJSON(got, sentinelAnswer) {
					sentinelSeen = true
					continue
				}
				replies = append(replies, got)
			}
			if !sentinelSeen {
				t.Fatalf("the sentinel call got no answer; got %q", replies)
			}
			checkReplies(t, replies, ex.Reply)
		})
	}
}

// JudgeBadInput writes every one of BadMessages on f, each followed by a
// valid call: each must get its error code, and each valid call its answer.
func JudgeBadInput(t *testing.T, f runtime.Framer) {
	for _, b := range BadMessages {
		if err := f.WriteMessage([]byte(b.Msg)); err != nil {
			t.Fatalf("%s: write: %v", b.Name, err)
		}
		var r struct {
			Error *runtime.Error `json:"error"`
		}
		got := read(t, f)
		if err := json.Unmarshal([]byte(got), &r); err != nil || r.Error == nil || r.Error.Code != b.Code {
			t.Fatalf("%s: got %s; want error code %d", b.Name, got, b.Code)
		}
		if err := f.WriteMessage([]byte(sentinel)); err != nil {
			t.Fatalf("%s: write the call after it: %v", b.Name, err)
		}
		if got := read(t, f); !sameJSON(got, sentinelAnswer) {
			t.Fatalf("%s: the call after it got %s", b.Name, got)
		}
	}
}

func read(t testing.TB, f runtime.Framer) string {
	t.Helper()
	msg, err := f.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return string(msg)
}

// oneLine compacts a multi-line example, which a newline-delimited framer
// could not carry; invalid JSON has its line breaks replaced by spaces.
func oneLine(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err == nil {
		return b.String()
	}
	return strings.ReplaceAll(s, "\n", " ")
}

func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// checkReplies compares what the server wrote with the reply the
// specification shows, as JSON values; batch elements in any order.
func checkReplies(t testing.TB, got []string, want string) {
	t.Helper()
	if want == "" {
		if len(got) != 0 {
			t.Fatalf("want no reply, got %q", got)
		}
		return
	}
	if len(got) != 1 {
		t.Fatalf("want exactly one reply, got %d: %q", len(got), got)
	}
	g, w := normalize(t, got[0]), normalize(t, want)
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("reply differs from the specification:\n got: %s\nwant: %s", got[0], want)
	}
}

// normalize decodes a reply, sorting batch elements so that order does not
// matter. Detail the specification leaves open (error data) is dropped.
func normalize(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("reply is not JSON: %v: %q", err, s)
	}
	strip := func(v any) any {
		if m, ok := v.(map[string]any); ok {
			if e, ok := m["error"].(map[string]any); ok {
				delete(e, "data")
			}
		}
		return v
	}
	if arr, ok := v.([]any); ok {
		keys := make([]string, len(arr))
		for i := range arr {
			arr[i] = strip(arr[i])
			b, _ := json.Marshal(arr[i])
			keys[i] = string(b)
		}
		sort.Strings(keys)
		return keys
	}
	return strip(v)
}
