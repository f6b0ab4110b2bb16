package mcphttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/runtime/mcp"
)

// loadRaw is a client written with net/http alone, as another
// implementation would talk to the server.
type loadRaw struct {
	url     string
	modern  bool
	tr      *http.Transport
	hc      *http.Client
	session string
	nextID  int64
}

func dialLoadRaw(ctx context.Context, url string, modern bool) (*loadRaw, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	r := &loadRaw{url: url, modern: modern, tr: tr, hc: &http.Client{Transport: tr}}
	if modern {
		return r, nil
	}
	resp, body, err := r.post(ctx, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1.0.0"}}}`, nil)
	if err != nil {
		tr.CloseIdleConnections()
		return nil, err
	}
	msg, err := loadResponse(resp, body, 0, "", false)
	if err != nil {
		tr.CloseIdleConnections()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	var init struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := json.Unmarshal(msg, &init); err != nil || init.Result.ProtocolVersion != mcp.Version20251125 {
		tr.CloseIdleConnections()
		return nil, fmt.Errorf("initialize: %s", msg)
	}
	if r.session = resp.Header.Get("Mcp-Session-Id"); r.session == "" {
		tr.CloseIdleConnections()
		return nil, errors.New("initialize: no Mcp-Session-Id")
	}
	resp, body, err = r.post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	if err == nil && resp.StatusCode != http.StatusAccepted {
		err = fmt.Errorf("notifications/initialized: status %d: %s", resp.StatusCode, body)
	}
	if err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// post sends one message with the headers of the client's era and returns
// the response with its whole body.
func (r *loadRaw) post(ctx context.Context, msg string, extra map[string]string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, strings.NewReader(msg))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if r.session != "" {
		req.Header.Set("Mcp-Session-Id", r.session)
		req.Header.Set("MCP-Protocol-Version", mcp.Version20251125)
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

func (r *loadRaw) add(ctx context.Context, a, b int64, progress bool) error {
	r.nextID++
	id := r.nextID
	tool := "add"
	if progress {
		tool = "progress_add"
	}
	var meta []string
	if progress {
		meta = append(meta, `"progressToken":"p`+strconv.FormatInt(id, 10)+`"`)
	}
	var headers map[string]string
	if r.modern {
		meta = append(meta, `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`,
			`"io.modelcontextprotocol/clientCapabilities":{}`,
			`"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1.0.0"}`)
		headers = map[string]string{"MCP-Protocol-Version": mcp.Version20260728, "Mcp-Method": "tools/call", "Mcp-Name": tool}
	}
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"a":%d,"b":%d}`, id, tool, a, b)
	if len(meta) > 0 {
		msg += `,"_meta":{` + strings.Join(meta, ",") + `}`
	}
	msg += `}}`
	resp, body, err := r.post(ctx, msg, headers)
	if err != nil {
		return err
	}
	token := ""
	if progress {
		token = "p" + strconv.FormatInt(id, 10)
	}
	reply, err := loadResponse(resp, body, id, token, progress)
	if err != nil {
		return fmt.Errorf("%s(%d, %d): %w", tool, a, b, err)
	}
	var res struct {
		Result struct {
			StructuredContent *loadSum `json:"structuredContent"`
			IsError           bool     `json:"isError"`
			ResultType        string   `json:"resultType"`
		} `json:"result"`
	}
	if err := json.Unmarshal(reply, &res); err != nil {
		return err
	}
	sc := res.Result.StructuredContent
	if res.Result.IsError || sc == nil || sc.Sum != a+b || r.modern && res.Result.ResultType != "complete" {
		return fmt.Errorf("%s(%d, %d): %s", tool, a, b, reply)
	}
	return nil
}

// loadResponse checks a POST's response to request id and returns the
// JSON-RPC response it carries. With progress the body must be an event
// stream with one notifications/progress for token before the response;
// without, a JSON body.
func loadResponse(resp *http.Response, body []byte, id int64, token string, progress bool) ([]byte, error) {
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	ct := resp.Header.Get("Content-Type")
	var msgs [][]byte
	switch {
	case strings.HasPrefix(ct, "application/json"):
		msgs = [][]byte{body}
	case strings.HasPrefix(ct, "text/event-stream"):
		var err error
		if msgs, err = loadEvents(body); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("Content-Type %q", ct)
	}
	if progress != strings.HasPrefix(ct, "text/event-stream") {
		return nil, fmt.Errorf("Content-Type %q for a call with progress %v", ct, progress)
	}
	var reply []byte
	reports := 0
	for _, m := range msgs {
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProgressToken json.RawMessage `json:"progressToken"`
				Progress      float64         `json:"progress"`
			} `json:"params"`
		}
		if err := json.Unmarshal(m, &env); err != nil {
			return nil, fmt.Errorf("message %q: %w", m, err)
		}
		switch {
		case env.Method == "notifications/progress":
			if reply != nil {
				return nil, errors.New("progress after the response")
			}
			if string(env.Params.ProgressToken) != strconv.Quote(token) {
				return nil, fmt.Errorf("progress for token %s, want %q", env.Params.ProgressToken, token)
			}
			reports++
		case env.Method != "":
			return nil, fmt.Errorf("unexpected message %s", m)
		default:
			if reply != nil {
				return nil, errors.New("two responses")
			}
			if string(env.ID) != strconv.FormatInt(id, 10) {
				return nil, fmt.Errorf("response to id %d answers id %s", id, env.ID)
			}
			reply = m
		}
	}
	if reply == nil {
		return nil, errors.New("no response")
	}
	if progress && reports != 1 {
		return nil, fmt.Errorf("%d progress notifications, want 1", reports)
	}
	return reply, nil
}

// loadEvents returns the data of every event of an event stream that has
// any (the priming event of a legacy stream has none).
func loadEvents(body []byte) ([][]byte, error) {
	var msgs [][]byte
	var data []byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if len(data) > 0 {
				msgs = append(msgs, data)
			}
			data = nil
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(line[len("data:"):], []byte(" "))
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, d...)
		}
	}
	if len(data) > 0 {
		return nil, errors.New("event stream ends inside an event")
	}
	return msgs, sc.Err()
}

// close deletes a legacy session, checks that the server has forgotten it
// (404), and closes the connections.
func (r *loadRaw) close() error {
	defer r.tr.CloseIdleConnections()
	if r.session == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, r.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Mcp-Session-Id", r.session)
	req.Header.Set("MCP-Protocol-Version", mcp.Version20251125)
	resp, err := r.hc.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("DELETE: status %d", resp.StatusCode)
	}
	resp, body, err := r.post(ctx, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusNotFound {
		return fmt.Errorf("ping after DELETE: status %d: %s", resp.StatusCode, body)
	}
	return nil
}
