package main

import (
	"errors"
	"flag"
	"strconv"
	"strings"
	"time"
)

// Flags that may be left unset, told apart from any value given (a seed of 0, --steps 0): their
// usage shows no default, where a sentinel default would print as "(default -1ns)".

// optUint64 is an optional unsigned flag.
type optUint64 struct {
	v   uint64
	set bool
}

func (o *optUint64) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatUint(o.v, 10)
}

func (o *optUint64) Set(s string) error {
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return numError(err)
	}
	o.v, o.set = v, true
	return nil
}

// optInt64 is an optional integer flag.
type optInt64 struct {
	v   int64
	set bool
}

func (o *optInt64) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatInt(o.v, 10)
}

func (o *optInt64) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return numError(err)
	}
	o.v, o.set = v, true
	return nil
}

// optDuration is an optional duration flag.
type optDuration struct {
	v   time.Duration
	set bool
}

func (o *optDuration) String() string {
	if o == nil || !o.set {
		return ""
	}
	return o.v.String()
}

func (o *optDuration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration (as 90s, 45m, 2h30m)")
	}
	o.v, o.set = v, true
	return nil
}

// numError is strconv's error without its wrapping ("parse error"), as flag words its own.
func numError(err error) error {
	if ne, ok := err.(*strconv.NumError); ok {
		return ne.Err
	}
	return err
}

// stringsFlag is a flag that may be given several times, its values in order.
type stringsFlag []string

func (s *stringsFlag) String() string {
	if s == nil {
		return ""
	}
	return strings.Join(*s, ",")
}

func (s *stringsFlag) Set(v string) error {
	if v == "" {
		return errors.New("empty")
	}
	*s = append(*s, v)
	return nil
}

// flagGiven tells whether the flag name was set on the command line (its default aside).
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
