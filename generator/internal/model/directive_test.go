package model

import (
	"strings"
	"testing"
)

func TestSplitDirectiveArgs(t *testing.T) {
	tests := []struct {
		in      string
		want    []directiveArg
		wantErr string
	}{
		{in: "name=notes", want: []directiveArg{{Key: "name", Value: "notes", HasValue: true}}},
		{in: "notification", want: []directiveArg{{Key: "notification"}}},
		{in: `name="a b" notification`, want: []directiveArg{{Key: "name", Value: "a b", HasValue: true, Pos: 0}, {Key: "notification", Pos: 11}}},
		{in: "name=`x\"y`", want: []directiveArg{{Key: "name", Value: `x"y`, HasValue: true}}},
		{in: `name=""`, want: []directiveArg{{Key: "name", Value: "", HasValue: true}}},
		{in: "name=", want: []directiveArg{{Key: "name", Value: "", HasValue: true}}},
		{in: `name="open`, wantErr: "unterminated or malformed quoted string"},
		{in: `name="a"b`, wantErr: "unexpected"},
		{in: "=x", wantErr: "malformed argument"},
		{in: "na.me=x", wantErr: "malformed argument"},
	}
	for _, tt := range tests {
		got, err := splitDirectiveArgs(tt.in, 0)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: error %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("%q: got %+v, want %+v", tt.in, got, tt.want)
			continue
		}
		for i := range got {
			w := tt.want[i]
			if got[i].Key != w.Key || got[i].Value != w.Value || got[i].HasValue != w.HasValue || (w.Pos != 0 && got[i].Pos != w.Pos) {
				t.Errorf("%q arg %d: got %+v, want %+v", tt.in, i, got[i], w)
			}
		}
	}
}
