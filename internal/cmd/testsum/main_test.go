package main

import (
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	const pass = `{"Action":"start","Package":"p/a"}
{"Action":"run","Package":"p/a","Test":"TestOne"}
{"Action":"output","Package":"p/a","Test":"TestOne","Output":"=== RUN   TestOne\n"}
{"Action":"output","Package":"p/a","Test":"TestOne","Output":"--- PASS: TestOne (0.00s)\n"}
{"Action":"pass","Package":"p/a","Test":"TestOne","Elapsed":0}
{"Action":"run","Package":"p/a","Test":"TestBrowser"}
{"Action":"output","Package":"p/a","Test":"TestBrowser","Output":"=== RUN   TestBrowser\n"}
{"Action":"output","Package":"p/a","Test":"TestBrowser","Output":"    browser_test.go:36: no chromium on this machine: the browser test needs it\n"}
{"Action":"output","Package":"p/a","Test":"TestBrowser","Output":"--- SKIP: TestBrowser (0.00s)\n"}
{"Action":"skip","Package":"p/a","Test":"TestBrowser","Elapsed":0}
{"Action":"output","Package":"p/a","Output":"PASS\n"}
{"Action":"output","Package":"p/a","Output":"ok  \tp/a\t0.010s\n"}
{"Action":"pass","Package":"p/a","Elapsed":0.01}
{"Action":"output","Package":"p/none","Output":"?   \tp/none\t[no test files]\n"}
{"Action":"skip","Package":"p/none","Elapsed":0}
`
	const fail = `{"Action":"run","Package":"p/b","Test":"TestBad"}
{"Action":"output","Package":"p/b","Test":"TestBad","Output":"=== RUN   TestBad\n"}
{"Action":"output","Package":"p/b","Test":"TestBad","Output":"    b_test.go:9: got 2, want 3\n"}
{"Action":"output","Package":"p/b","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"p/b","Test":"TestBad","Elapsed":0}
{"Action":"output","Package":"p/b","Output":"FAIL\n"}
{"Action":"output","Package":"p/b","Output":"FAIL\tp/b\t0.010s\n"}
{"Action":"fail","Package":"p/b","Elapsed":0.01}
`
	const buildFail = `{"ImportPath":"p/c [p/c.test]","Action":"build-output","Output":"# p/c\n"}
{"ImportPath":"p/c [p/c.test]","Action":"build-output","Output":"c.go:3:1: syntax error\n"}
{"ImportPath":"p/c [p/c.test]","Action":"build-fail"}
{"Action":"output","Package":"p/c","Output":"FAIL\tp/c [build failed]\n"}
{"Action":"fail","Package":"p/c","Elapsed":0}
`
	tests := []struct {
		name       string
		in         string
		wantFailed bool
		wantErr    bool
		want       []string // in order
		not        []string
	}{
		{"pass, a skip, no tests", pass, false, false,
			[]string{"ok  \tp/a\t0.010s\n", "?   \tp/none\t[no test files]\n", "skipped (1):\n  p/a TestBrowser: no chromium on this machine: the browser test needs it\n"},
			[]string{"PASS\n", "TestOne"}},
		{"a failed test", pass + fail, true, false,
			[]string{"ok  \tp/a", "    b_test.go:9: got 2, want 3\n--- FAIL: TestBad", "FAIL\tp/b\t0.010s\n", "skipped (1)"}, nil},
		{"a build failure", buildFail, true, false, []string{"c.go:3:1: syntax error\n", "FAIL\tp/c [build failed]"}, nil},
		{"nothing read", "", true, true, nil, nil},
		{"not test2json", "go: no such module\n", true, true, []string{"go: no such module\n"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			failed, err := summarize(strings.NewReader(tt.in), &out)
			if failed != tt.wantFailed || (err != nil) != tt.wantErr {
				t.Errorf("failed %v, err %v; want failed %v, an error %v", failed, err, tt.wantFailed, tt.wantErr)
			}
			rest := out.String()
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%s", w, out.String())
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tt.not {
				if strings.Contains(out.String(), n) {
					t.Errorf("output has %q:\n%s", n, out.String())
				}
			}
		})
	}
}
