package runconfig

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// unknownKeys lists the keys of a configuration file that name no setting, each with its line,
// its path (replay.trian_ratio) and the setting it most likely meant: yaml.v3's own error
// names the Go type instead ("field trian_ratio not found in type train.ReplayConfig"). It also
// lists the values that a setting's own text decoder refuses, with their line and path
// (yaml.v3 gives neither for them).
func unknownKeys(data []byte) []string {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil // the strict decoder says what is wrong
	}
	var out []string
	walkKeys(doc.Content[0], reflect.TypeOf(Config{}), "", &out)
	return out
}

var (
	yamlUnmarshaler = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()
	textUnmarshaler = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
)

// fieldsOf maps a struct's YAML keys to their types, inline fields' keys included.
func fieldsOf(t reflect.Type, into map[string]reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case strings.Contains(opts, "inline"):
			fieldsOf(f.Type, into)
		case name == "":
			into[strings.ToLower(f.Name)] = f.Type
		default:
			into[name] = f.Type
		}
	}
}

func walkKeys(n *yaml.Node, t reflect.Type, path string, out *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(yamlUnmarshaler) {
		return // its decoder says where (Duration)
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		// yaml.v3 passes a text decoder's error on without its place (mcts.Rule's): tried here.
		if n.Kind == yaml.ScalarNode {
			if err := reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Value)); err != nil {
				*out = append(*out, fmt.Sprintf("line %d: %s: %v", n.Line, strings.TrimSuffix(path, "."), err))
			}
		}
		return
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := map[string]reflect.Type{}
		fieldsOf(t, fields)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			ft, ok := fields[key.Value]
			if !ok {
				msg := fmt.Sprintf("line %d: %s%s: no such setting", key.Line, path, key.Value)
				if near := nearest(key.Value, fields); near != "" {
					msg += fmt.Sprintf(" (did you mean %s%s?)", path, near)
				}
				*out = append(*out, msg)
				continue
			}
			walkKeys(value, ft, path+key.Value+".", out)
		}
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for _, e := range n.Content {
			walkKeys(e, t.Elem(), path, out) // optimizer.schedule.factor: the list's keys
		}
	default:
		// yaml.v3 names the line, not the key ("line 22: cannot unmarshal !!str `abc` into
		// int", of a line with four keys), and takes 1.9 for an int as 1.
		if want := mismatch(n, t); want != "" {
			*out = append(*out, fmt.Sprintf("line %d: %s: want %s, is %s", n.Line, strings.TrimSuffix(path, "."), want, describe(n)))
		}
	}
}

// mismatch says what a setting of type t wants if node n is not one ("" if it is, or if the
// strict decoder is left to judge: a null, an alias, a type checked nowhere here).
func mismatch(n *yaml.Node, t reflect.Type) string {
	if n.Kind == yaml.AliasNode || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" || t == reflect.TypeOf(time.Duration(0)) {
		return "" // yaml.v3 reads "2ms" into a time.Duration
	}
	scalar := n.Kind == yaml.ScalarNode
	var b bool
	var f float64
	switch t.Kind() {
	case reflect.Struct:
		return "a mapping of settings" // a mapping was walked above
	case reflect.Slice:
		return "a list"
	case reflect.Bool:
		if !scalar || n.Decode(&b) != nil {
			return "true or false"
		}
	case reflect.String:
		if !scalar {
			return "a text"
		}
	case reflect.Float32, reflect.Float64:
		if !scalar || n.Decode(&f) != nil {
			return "a number"
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		// yaml.v3 decodes 1.9 into an int as 1; 1e3 is a whole number.
		if !scalar || n.Decode(&f) != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
			return "a whole number"
		}
	}
	return ""
}

// describe is what a node holds, for an error: its text if a scalar.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return "something else"
}

// nearest is the key closest to s by edit distance, if it is close (at most a third of its
// letters, and 2 at most), else "".
func nearest(s string, keys map[string]reflect.Type) string {
	best, bestD := "", 3
	for k := range keys {
		d := editDistance(s, k)
		if d < bestD || d == bestD && k < best {
			best, bestD = k, d
		}
	}
	if bestD > 2 || bestD*3 > len(s) {
		return ""
	}
	return best
}

// editDistance is the Damerau–Levenshtein distance (optimal string alignment) of a and b.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
