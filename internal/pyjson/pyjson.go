// Package pyjson writes JSON strings and floats exactly as Python's
// json.dumps does, for the places where feather must match Python byte for
// byte: chat templates' tojson and Featherbench's task_hash.
package pyjson

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// WriteString quotes s as json.dumps does: \" \\ \n \r \t \b \f, other
// control characters as \u00XX, and with ensure_ascii everything outside
// printable ASCII as \uXXXX (UTF-16 surrogate pairs above U+FFFF).
func WriteString(b *strings.Builder, s string, ensureASCII bool) {
	const hex = "0123456789abcdef"
	u4 := func(r rune) {
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hex[(r>>shift)&0xf])
		}
	}
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20:
				u4(r)
			case ensureASCII && r > 0x7e:
				if r > 0xffff {
					r -= 0x10000
					u4(0xd800 + (r >> 10))
					u4(0xdc00 + (r & 0x3ff))
				} else {
					u4(r)
				}
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}

// Float is float.__repr__ as json.dumps writes it: the shortest
// round-trip digits, scientific below 1e-4 and from 1e16 up (exponent with
// a sign and at least two digits), ".0" on integral values, and NaN /
// Infinity spelled as Python spells them.
func Float(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	sci := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expStr, _ := strings.Cut(sci, "e")
	exp, _ := strconv.Atoi(expStr)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// Quote is WriteString into a new string, without ensure_ascii (as
// json.dumps(..., ensure_ascii=False)).
func Quote(s string) string {
	var b strings.Builder
	WriteString(&b, s, false)
	return b.String()
}
