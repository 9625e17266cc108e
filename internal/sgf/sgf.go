// Package sgf reads and writes the Smart Game Format, FF[4] (https://red-bean.com/sgf/): a
// collection of game trees, each a sequence of nodes followed by its variations, each node a
// list of properties with one or more bracketed values. It is the syntax only; what the
// properties mean is the caller's (internal/games maps zero's records onto it).
//
// Values are held unescaped: "\]" reads as "]", "\\" as "\", and a backslash before a line
// break (a soft break) is removed, as the standard's Text type says. Writing escapes them
// back, so Parse(Append(t)) gives t again.
package sgf

import (
	"errors"
	"fmt"
	"strings"
)

// Property is one property of a node: its identifier (upper-case letters, "B", "PW") and its
// values, unescaped.
type Property struct {
	ID     string
	Values []string
}

// Node is one node of a game tree: its properties in the order of the file.
type Node struct {
	Props []Property
}

// Get is the first value of the property id, and whether the node has it.
func (n *Node) Get(id string) (string, bool) {
	for _, p := range n.Props {
		if p.ID == id {
			return p.Values[0], true
		}
	}
	return "", false
}

// Set gives the node the property id with the single value v, replacing any it had.
func (n *Node) Set(id, v string) {
	for i := range n.Props {
		if n.Props[i].ID == id {
			n.Props[i].Values = []string{v}
			return
		}
	}
	n.Props = append(n.Props, Property{ID: id, Values: []string{v}})
}

// Tree is a game tree: a sequence of nodes, then the variations that follow its last node.
type Tree struct {
	Nodes    []Node
	Children []*Tree
}

// MainLine is the tree's nodes from its root along the first variation at each branch: the
// game as played, by the standard's convention.
func (t *Tree) MainLine() []Node {
	var line []Node
	for ; t != nil; t = first(t.Children) {
		line = append(line, t.Nodes...)
	}
	return line
}

func first(ts []*Tree) *Tree {
	if len(ts) == 0 {
		return nil
	}
	return ts[0]
}

// SyntaxError is a place in the text where it is not SGF, and what was wrong there.
type SyntaxError struct {
	Line, Column int // from 1; the column counts bytes
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// MaxDepth bounds how deeply variations nest, so that no file makes the reader build a
// chain without end; real records nest a few levels.
const MaxDepth = 10000

// Parse reads a collection: one or more game trees. A UTF-8 byte-order mark and white space
// before, between and after the trees are allowed, nothing else. Lower-case letters in a
// property identifier are dropped, as the standard asks readers of older files to do.
func Parse(text []byte) ([]*Tree, error) {
	p := parser{text: text, line: 1, lineStart: 0}
	if len(text) >= 3 && string(text[:3]) == "\xef\xbb\xbf" {
		p.pos = 3
		p.lineStart = 3
	}
	var trees []*Tree
	for {
		p.space()
		if p.pos == len(p.text) {
			break
		}
		if p.text[p.pos] != '(' {
			if len(trees) == 0 {
				return nil, p.errorf("want '(' to start a game tree, not %s", p.here())
			}
			return nil, p.errorf("want '(' to start another game tree, or the end, not %s", p.here())
		}
		t, err := p.tree()
		if err != nil {
			return nil, err
		}
		trees = append(trees, t)
	}
	if len(trees) == 0 {
		return nil, errors.New("no game tree: the text is empty")
	}
	return trees, nil
}

type parser struct {
	text      []byte
	pos       int
	line      int
	lineStart int
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Line: p.line, Column: p.pos - p.lineStart + 1, Msg: fmt.Sprintf(format, args...)}
}

// here names the byte at the reading position, for errors.
func (p *parser) here() string {
	if p.pos >= len(p.text) {
		return "the end of the text"
	}
	return fmt.Sprintf("%q", p.text[p.pos])
}

// advance moves past one byte, counting lines (a CR LF, LF CR, CR or LF ends one).
func (p *parser) advance() {
	c := p.text[p.pos]
	p.pos++
	if c == '\n' || c == '\r' {
		if p.pos < len(p.text) && (p.text[p.pos] == '\n' || p.text[p.pos] == '\r') && p.text[p.pos] != c {
			p.pos++
		}
		p.line++
		p.lineStart = p.pos
	}
}

func (p *parser) space() {
	for p.pos < len(p.text) {
		switch p.text[p.pos] {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			p.advance()
		default:
			return
		}
	}
}

// tree reads a game tree from its '(' without recursion: open holds the trees whose ')' is
// still to come.
func (p *parser) tree() (*Tree, error) {
	root := &Tree{}
	open := []*Tree{root}
	p.advance() // '('
	for {
		p.space()
		cur := open[len(open)-1]
		if p.pos == len(p.text) {
			return nil, p.errorf("the text ends inside a game tree: want ')'")
		}
		switch c := p.text[p.pos]; {
		case c == ';':
			if len(cur.Children) > 0 {
				return nil, p.errorf("a node after a variation: want '(' or ')'")
			}
			p.advance()
			n, err := p.node()
			if err != nil {
				return nil, err
			}
			cur.Nodes = append(cur.Nodes, n)
		case c == '(':
			if len(cur.Nodes) == 0 {
				return nil, p.errorf("a variation before any node: a game tree starts with ';'")
			}
			if len(open) >= MaxDepth {
				return nil, p.errorf("variations nested more than %d deep", MaxDepth)
			}
			p.advance()
			t := &Tree{}
			cur.Children = append(cur.Children, t)
			open = append(open, t)
		case c == ')':
			if len(cur.Nodes) == 0 {
				return nil, p.errorf("an empty game tree: want ';' and a node")
			}
			p.advance()
			open = open[:len(open)-1]
			if len(open) == 0 {
				return root, nil
			}
		default:
			return nil, p.errorf("want ';', '(' or ')', not %s", p.here())
		}
	}
}

// node reads a node's properties, after its ';'.
func (p *parser) node() (Node, error) {
	var n Node
	for {
		p.space()
		if p.pos == len(p.text) {
			return n, nil
		}
		c := p.text[p.pos]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return n, nil
		}
		line, col := p.line, p.pos-p.lineStart+1
		var id strings.Builder
		for p.pos < len(p.text) {
			c := p.text[p.pos]
			if c >= 'A' && c <= 'Z' {
				id.WriteByte(c)
			} else if !(c >= 'a' && c <= 'z') {
				break
			}
			p.pos++
		}
		if id.Len() == 0 {
			return n, &SyntaxError{line, col, "a property identifier without an upper-case letter"}
		}
		prop := Property{ID: id.String()}
		for {
			p.space()
			if p.pos == len(p.text) || p.text[p.pos] != '[' {
				break
			}
			v, err := p.value()
			if err != nil {
				return n, err
			}
			prop.Values = append(prop.Values, v)
		}
		if len(prop.Values) == 0 {
			return n, &SyntaxError{line, col, fmt.Sprintf("property %s has no value: want '[' after it", prop.ID)}
		}
		for _, q := range n.Props {
			if q.ID == prop.ID {
				return n, &SyntaxError{line, col, fmt.Sprintf("property %s twice in one node", prop.ID)}
			}
		}
		n.Props = append(n.Props, prop)
	}
}

// value reads one bracketed value, unescaping it.
func (p *parser) value() (string, error) {
	line, col := p.line, p.pos-p.lineStart+1
	p.advance() // '['
	var v strings.Builder
	for p.pos < len(p.text) {
		c := p.text[p.pos]
		switch c {
		case ']':
			p.advance()
			return v.String(), nil
		case '\\':
			p.advance()
			if p.pos == len(p.text) {
				break
			}
			if e := p.text[p.pos]; e == '\n' || e == '\r' {
				p.advance() // a soft line break: nothing
				continue
			}
			v.WriteByte(p.text[p.pos])
			p.advance()
		case '\n', '\r':
			start := p.pos
			p.advance()
			v.Write(p.text[start:p.pos])
		default:
			v.WriteByte(c)
			p.pos++
		}
	}
	return "", &SyntaxError{line, col, "a value without its closing ']'"}
}

// Simple is a value read as the standard's SimpleText: every line break and other white space
// a single space, trimmed.
func Simple(v string) string { return strings.Join(strings.Fields(v), " ") }

// Append writes the tree after b: one node a line, values escaped, variations in their
// brackets after the sequence.
func Append(b []byte, t *Tree) []byte {
	b = append(b, '(')
	for i, n := range t.Nodes {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, ';')
		for _, p := range n.Props {
			b = append(b, p.ID...)
			for _, v := range p.Values {
				b = append(b, '[')
				b = appendEscaped(b, v)
				b = append(b, ']')
			}
		}
	}
	for _, c := range t.Children {
		b = append(b, '\n')
		b = Append(b, c)
	}
	return append(b, ')')
}

func appendEscaped(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == ']' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, v[i])
	}
	return b
}
