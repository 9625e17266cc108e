package sgf

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		main       []string // each main-line node's properties, "ID=v1|v2 ID2=v"
		trees      int
	}{
		{"one node", "(;FF[4])", []string{"FF=4"}, 1},
		{"a sequence", "(;FF[4]GM[24];W[place f6];B[place e5])", []string{"FF=4 GM=24", "W=place f6", "B=place e5"}, 1},
		{"white space between everything", " \n( ;FF [4]\r\n ; B [x] )\n\n", []string{"FF=4", "B=x"}, 1},
		{"a byte-order mark", "\xef\xbb\xbf(;C[a])", []string{"C=a"}, 1},
		{"escapes", `(;C[a\]b\\c\d])`, []string{`C=a]b\cd`}, 1},
		{"a soft line break", "(;C[one \\\ntwo])", []string{"C=one two"}, 1},
		{"a hard line break kept", "(;C[one\ntwo])", []string{"C=one\ntwo"}, 1},
		{"several values", "(;AB[aa][bb][cc])", []string{"AB=aa|bb|cc"}, 1},
		{"lower-case letters dropped", "(;CoPyright[x])", []string{"CP=x"}, 1},
		{"an empty value", "(;C[])", []string{"C="}, 1},
		{"the main line is the first variation", "(;A[1](;B[2];C[3])(;B[4]))", []string{"A=1", "B=2", "C=3"}, 1},
		{"variations in variations", "(;A[1](;B[2](;C[3])(;C[5]))(;B[4]))", []string{"A=1", "B=2", "C=3"}, 1},
		{"a collection", "(;A[1])(;A[2])\n(;A[3])", []string{"A=1"}, 3},
		{"brackets and parentheses in a value", "(;C[(;x)])", []string{"C=(;x)"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trees, err := Parse([]byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if len(trees) != tc.trees {
				t.Fatalf("%d trees, want %d", len(trees), tc.trees)
			}
			var got []string
			for _, n := range trees[0].MainLine() {
				var ps []string
				for _, p := range n.Props {
					ps = append(ps, p.ID+"="+strings.Join(p.Values, "|"))
				}
				got = append(got, strings.Join(ps, " "))
			}
			if !reflect.DeepEqual(got, tc.main) {
				t.Errorf("main line %q, want %q", got, tc.main)
			}
			// Written and read again, every tree is the same.
			for _, tr := range trees {
				again, err := Parse(Append(nil, tr))
				if err != nil {
					t.Fatalf("%s: %v", Append(nil, tr), err)
				}
				if !reflect.DeepEqual(again[0], tr) {
					t.Errorf("written %s, read back as another tree", Append(nil, tr))
				}
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "no game tree: the text is empty"},
		{"only space", " \n ", "no game tree"},
		{"not SGF", `{"format": "zero-game/1"}`, "line 1, column 1: want '(' to start a game tree, not '{'"},
		{"junk after a tree", "(;A[1])\nx", "line 2, column 1: want '(' to start another game tree, or the end, not 'x'"},
		{"unclosed tree", "(;A[1]", "line 1, column 7: the text ends inside a game tree: want ')'"},
		{"unclosed value", "(;C[abc", "line 1, column 4: a value without its closing ']'"},
		{"unclosed value ending in a backslash", `(;C[abc\`, "line 1, column 4: a value without its closing ']'"},
		{"a property without a value", "(;B;W[x])", "line 1, column 3: property B has no value"},
		{"a property twice", "(;B[x]B[y])", "line 1, column 7: property B twice in one node"},
		{"lower case only", "(;b[x])", "line 1, column 3: a property identifier without an upper-case letter"},
		{"an empty tree", "()", "line 1, column 2: an empty game tree"},
		{"a variation first", "((;A[1]))", "line 1, column 2: a variation before any node"},
		{"a node after a variation", "(;A[1](;B[2]);C[3])", "line 1, column 14: a node after a variation"},
		{"junk in a node", "(;A[1] # )", "line 1, column 8: want ';', '(' or ')', not '#'"},
		{"lines counted", "(;A[1]\r\n;B[2\n\n]\n;C)", "line 5, column 2: property C has no value"},
		{"too deep", strings.Repeat("(;A[1]", MaxDepth+1), "variations nested more than 10000 deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			var se *SyntaxError
			if strings.HasPrefix(tc.want, "line") && !errors.As(err, &se) {
				t.Errorf("%T, want a *SyntaxError", err)
			}
		})
	}
}

func TestNodeGetSet(t *testing.T) {
	var n Node
	n.Set("C", "a")
	n.Set("B", "x")
	n.Set("C", "b")
	if v, ok := n.Get("C"); !ok || v != "b" || len(n.Props) != 2 {
		t.Errorf("Get C = %q %v with %d properties, want b true 2", v, ok, len(n.Props))
	}
	if _, ok := n.Get("W"); ok {
		t.Error("Get W found a property the node has not")
	}
}

func TestSimple(t *testing.T) {
	if got := Simple(" a\n b\t\tc \r\n"); got != "a b c" {
		t.Errorf("Simple = %q, want %q", got, "a b c")
	}
}

func TestAppendEscapes(t *testing.T) {
	tr := &Tree{Nodes: []Node{{Props: []Property{{ID: "C", Values: []string{`a]b\c`}}}}}}
	if got, want := string(Append(nil, tr)), `(;C[a\]b\\c])`; got != want {
		t.Errorf("Append = %s, want %s", got, want)
	}
}
