package runconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, says string
	}{
		{"unknown key", "game: yinsh\nselfplay: {simulatons: 10}\n", "line 2: selfplay.simulatons: no such setting (did you mean selfplay.simulations?)"},
		{"a typo in a section", "game: yinsh\nreplay:\n  trian_ratio: 4\n", "line 3: replay.trian_ratio: no such setting (did you mean replay.train_ratio?)"},
		{"an unknown section", "game: yinsh\nsearch: {c_puct: 2}\n", "line 2: search: no such setting"},
		{"a search key, inline in selfplay", "game: yinsh\nselfplay: {c_pcut: 2}\n", "line 2: selfplay.c_pcut: no such setting (did you mean selfplay.c_puct?)"},
		{"a key in a list", "game: yinsh\noptimizer: {schedule: [{step: 5, factr: 0.5}]}\n", "line 2: optimizer.schedule.factr: no such setting (did you mean optimizer.schedule.factor?)"},
		{"no Go type named", "game: yinsh\nreplay: {zzzzzz: 1}\n", "line 2: replay.zzzzzz: no such setting"},
		{"wrong type", "game: yinsh\nnet: {blocks: many}\n", `line 2: net.blocks: want a whole number, is "many"`},
		{"wrong type, named among keys on its line", "game: yinsh\ntrainer: {batch_size: 64, keep_last: abc, checkpoint_every: 5}\n", `line 2: trainer.keep_last: want a whole number, is "abc"`},
		{"a fraction for a whole number", "game: yinsh\nnet: {blocks: 1.9}\n", `line 2: net.blocks: want a whole number, is "1.9"`},
		{"a fraction for the seed", "game: yinsh\nseed: 7.5\n", `line 2: seed: want a whole number, is "7.5"`},
		{"a number for a switch", "game: yinsh\nselfplay: {gumbel: 1}\n", `line 2: selfplay.gumbel: want true or false, is "1"`},
		{"a text for a number", "game: yinsh\noptimizer: {learning_rate: fast}\n", `line 2: optimizer.learning_rate: want a number, is "fast"`},
		{"a value for a section", "game: yinsh\ntrainer: 5\n", `line 2: trainer: want a mapping of settings, is "5"`},
		{"a text for a list", "game: yinsh\neval: {baselines: random}\n", `line 2: eval.baselines: want a list, is "random"`},
		{"a list for the game", "game: [yinsh]\n", "line 1: game: want a text, is a list"},
		{"out of range", "game: yinsh\nnet: {blocks: -1}\n", "net.blocks: must be in [0, 128], is -1"},
		{"two problems", "game: yinsh\ntrainer: {batch_size: 0}\neval: {games: 3}\n", "trainer.batch_size: must be in [1, 4096], is 0\neval.games: must be even"},
		{"cheap above full", "game: yinsh\nselfplay: {simulations: 8, cheap_simulations: 9}\n", "selfplay.cheap_simulations: must be in [0, 8], is 9"},
		{"bad duration", "game: yinsh\nselfplay: {max_wait: soon}\n", `line 2: "soon" is not a duration`},
		{"no game", "seed: 3\n", "game: missing"},
		{"game mistyped", "gmae: yinsh\n", "line 1: gmae: no such setting (did you mean game?)"},
		{"two documents", "game: yinsh\nnet: {blocks: 1}\n---\nnet: {blocks: 9, bogus: 3}\n", "line 3: a second YAML document (after ---)"},
		{"bad baseline", "game: yinsh\neval: {baselines: [random, \"uct:0\"]}\n", "eval.baselines[1]:"},
		{"baseline twice", "game: yinsh\neval: {baselines: [random, random]}\n", `eval.baselines[1]: "random" is listed twice`},
		{"value mix", "game: yinsh\ntrainer: {value_from_search: 1.5}\n", "trainer.value_from_search: must be in [0, 1], is 1.5"},
		{"keep one checkpoint", "game: yinsh\ntrainer: {keep_last: 1}\n", "trainer.keep_last: must be in [2, 10000], is 1"},
		{"bad optimizer", "game: yinsh\noptimizer: {method: adagrad}\n", `optimizer.method: must be "adam" or "sgd"`},
		{"search key", "game: yinsh\nselfplay: {virtual_loss: -1}\n", "selfplay.virtual_loss: must be a number from 0 to 100, is -1"},
		{"search key too large", "game: yinsh\nselfplay: {virtual_loss: 1e300}\n", "selfplay.virtual_loss: must be a number from 0 to 100, is 1e+300"},
		{"tree too large", "game: yinsh\nselfplay: {max_nodes: 2000000000}\n", "selfplay.max_nodes: must be 1 to 1073741824 (2^30), is 2000000000"},
		{"baseline's search too large", "game: yinsh\neval: {baselines: [\"mcts:10:in_flight=1000000000:x.zck\"]}\n", `eval.baselines[0]: player "mcts:10:in_flight=1000000000:x.zck": mcts: in_flight = 1000000000: want 1 to 256`},
		{"search rule", "game: yinsh\nselfplay: {rule: ucb2}\n", `line 2: selfplay.rule: mcts: rule "ucb2": want puct or ucb1`},
		{"search rule, block style", "game: yinsh\nselfplay:\n  workers: 2\n  rule: ucb2\n", `line 4: selfplay.rule: mcts: rule "ucb2"`},
		{"search and self-play keys", "game: yinsh\nselfplay: {in_flight: 0, workers: -1}\n", "selfplay.workers: must be in [0, 256], is -1\nselfplay.in_flight: must be in [1, 256], is 0"},
		{"temperature order", "game: yinsh\nselfplay: {temperature: [{from: 5, value: 1}, {from: 2, value: 0}]}\n", "selfplay.temperature[1].from"},
	} {
		path := filepath.Join(t.TempDir(), "c.yaml")
		os.WriteFile(path, []byte(tc.yaml), 0o644)
		_, err := LoadConfig(path)
		if err == nil || !strings.Contains(err.Error(), tc.says) || !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("%s: err = %v, want %q after the file name", tc.name, err, tc.says)
		}
	}
}

// TestConfigSyntaxLine: a syntax error is said on its line, whether yaml.v3's parser or its
// scanner finds it (the parser counted lines from 0: a "{" left open on line 2 was on line 1).
func TestConfigSyntaxLine(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, says string
	}{
		{"flow mapping left open, line 2", "game: yinsh\nnet: {blocks: 4, channels: 32\n", "line 2: did not find expected ',' or '}'"},
		{"flow list left open, line 2", "game: yinsh\nseed: [1\n", "line 2: did not find expected ',' or ']'"},
		{"flow mapping left open, line 1", "net: {blocks: 4\n", "line 1: did not find expected ',' or '}'"},
		{"one line, no newline", "net: {blocks: 4", "line 1: did not find expected ',' or '}'"},
		{"a brace too many, line 4", "game: yinsh\nseed: 1\n\nnet: {blocks: 4}}\n", "line 4: did not find expected key"},
		{"flow list left open after a good one, line 6", "game: yinsh\nseed: 1\n\nnet: {blocks: 4,\n  channels: 32}\neval: {baselines: [random\n", "line 6: did not find expected ',' or ']'"},
		{"a key out of its mapping, line 4", "game: yinsh\nnet:\n  blocks: 4\n channels: 3\n", "line 4: did not find expected key"},
		{"the scanner's, line 5", "game: yinsh\nseed: 1\nnet:\n  blocks: 4\n   channels: 3\n", "line 5: mapping values are not allowed in this context"},
		{"the scanner's, line 2", "game: yinsh\n\tseed: 1\n", "line 2: found a tab character"},
	} {
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(path, []byte(tc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadConfig(path)
		if err == nil || !strings.HasPrefix(err.Error(), path+": "+tc.says) {
			t.Errorf("%s: err = %v, want %q after the file name", tc.name, err, tc.says)
		}
	}
}

func TestConfigRoundTrip(t *testing.T) {
	// A whole number may be written as one with an exponent (1e3), a switch as yes.
	c, err := ParseConfig([]byte("game: gyges\nselfplay: {simulations: 1e2, gumbel: yes, max_wait: 3ms}\nstop: {time: 1h30m}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.SelfPlay.Simulations != 100 || c.SelfPlay.CheapSimulations != DefaultConfig("gyges").SelfPlay.CheapSimulations {
		t.Errorf("decoded over the defaults: %+v", c.SelfPlay)
	}
	data, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseConfig(data)
	if err != nil {
		t.Fatalf("%v in\n%s", err, data)
	}
	a, _ := c.Marshal()
	b, _ := back.Marshal()
	if string(a) != string(b) {
		t.Errorf("round trip:\n%s\nbecame\n%s", a, b)
	}
}

// FuzzParseConfig: any input is either refused with an error or gives a configuration that
// validates.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("game: yinsh\n"))
	f.Add([]byte("game: yinsh\nnet:\n  blocks: 3\noptimizer:\n  schedule:\n    - {step: 1, factor: 2}\n"))
	f.Add([]byte("game: gyges\nselfplay: {max_wait: 1ms, temperature: [{from: 0, value: 1}]}\nstop: {time: 1h}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		if c.Game == "" || c.Validate() != nil {
			t.Fatalf("accepted an invalid configuration %+v", c)
		}
	})
}
