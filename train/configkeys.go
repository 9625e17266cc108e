package train

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"

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
	}
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
