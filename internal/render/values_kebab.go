package render

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// KebabCase is Helm's `kebabcase` template function: sprig's, which is
// github.com/huandu/xstrings ToKebabCase (Helm v3 pins xstrings v1.5.0; the
// algorithm is unchanged since 2022). The FiftyOne chart names each
// delegated-operator Deployment and Job `kebabcase <key>`, so the provider
// must predict it exactly, digit quirks included: "gpuA100x2" becomes
// "gpu-a-100x2" and "l4x1" becomes "l-4x1" (domain.md §2.4).
//
// This is a port of xstrings' camelCaseToLowerCase (MIT licence, (c) 2015
// Huan Du) with the connector fixed to '-'; values_kebab_test.go checks it
// against Helm's own engine.
func KebabCase(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	wt, word, rest := nextKebabWord(s)
	for rest != "" {
		if wt != kebabConnector {
			writeKebabWord(&b, wt, word)
		}
		prev, last := wt, word
		wt, word, rest = nextKebabWord(rest)
		switch prev {
		case kebabNumber:
			wt, word, rest = kebabAfterNumber(&b, wt, word, rest)
		case kebabConnector:
			writeKebabWord(&b, prev, last)
		case kebabPunct:
			// nothing: punctuation is kept as is, without a connector.
		default:
			wt, word, rest = kebabAfterLetters(&b, wt, word, rest)
		}
	}
	writeKebabWord(&b, wt, word)
	return b.String()
}

// kebabAfterNumber: letters and digits glued to a number stay one word
// ("2xx"); a connector follows unless the next word is punctuation.
func kebabAfterNumber(b *strings.Builder, wt kebabWordType, word, rest string) (kebabWordType, string, string) {
	for wt == kebabAlphabet || wt == kebabNumber {
		writeKebabWord(b, wt, word)
		wt, word, rest = nextKebabWord(rest)
	}
	if wt != kebabInvalid && wt != kebabPunct && wt != kebabConnector {
		b.WriteByte('-')
	}
	return wt, word, rest
}

// kebabAfterLetters decides what follows a letter word: a number directly
// after letters belongs to them ("Bld4Floor" → "bld4-floor") unless lower
// case letters follow the number ("HTTP2xx" → "http-2xx").
func kebabAfterLetters(b *strings.Builder, wt kebabWordType, word, rest string) (kebabWordType, string, string) {
	if wt != kebabNumber {
		if wt != kebabConnector && wt != kebabPunct {
			b.WriteByte('-')
		}
		return wt, word, rest
	}
	if rest == "" {
		return wt, word, rest
	}
	number := word
	wt, word, rest = nextKebabWord(rest)
	if wt != kebabAlphabet {
		writeKebabWord(b, kebabNumber, number)
		if wt != kebabConnector && wt != kebabPunct {
			b.WriteByte('-')
		}
		return wt, word, rest
	}
	b.WriteByte('-')
	writeKebabWord(b, kebabNumber, number)
	for wt == kebabAlphabet || wt == kebabNumber {
		writeKebabWord(b, wt, word)
		wt, word, rest = nextKebabWord(rest)
	}
	if wt != kebabInvalid && wt != kebabConnector && wt != kebabPunct {
		b.WriteByte('-')
	}
	return wt, word, rest
}

type kebabWordType int

const (
	kebabInvalid kebabWordType = iota
	kebabNumber
	kebabUpper
	kebabAlphabet
	kebabConnector
	kebabPunct
	kebabOther
)

// nextKebabWord splits the next word off s (xstrings nextWord).
func nextKebabWord(s string) (wt kebabWordType, word, rest string) {
	if s == "" {
		return kebabInvalid, "", ""
	}
	r, size := nextValidRune(s, utf8.RuneError)
	if r == utf8.RuneError {
		return kebabInvalid, s[:size], s[size:]
	}
	var offset int
	switch {
	case isKebabConnector(r):
		wt, offset = kebabConnector, size+runLength(s[size:], r, isKebabConnector)
	case unicode.IsPunct(r):
		wt, offset = kebabPunct, size+runLength(s[size:], r, unicode.IsPunct)
	case unicode.IsUpper(r):
		wt, offset = kebabUpper, upperWordLength(s, r, size)
	case isKebabAlphabet(r):
		wt, offset = kebabAlphabet, size+runLength(s[size:], r, isLowerAlphabet)
	case unicode.IsNumber(r):
		wt, offset = kebabNumber, size+runLength(s[size:], r, unicode.IsNumber)
	default:
		wt, offset = kebabOther, size+runLength(s[size:], r, isKebabOther)
	}
	return wt, s[:offset], s[offset:]
}

// upperWordLength measures a word starting with the upper-case firstRune
// (first bytes long): "Word", or an acronym "HTTP" that gives its last letter to the
// next word when a lower-case letter follows ("HTTPServer" → "HTTP",
// "Server").
func upperWordLength(s string, firstRune rune, first int) int {
	rest := s[first:]
	if rest == "" {
		return first
	}
	r, size := nextValidRune(rest, firstRune)
	switch {
	case unicode.IsUpper(r):
		offset, prevSize := first+size, size
		rest = rest[size:]
		for rest != "" {
			r, size = nextValidRune(rest, r)
			if !unicode.IsUpper(r) {
				break
			}
			prevSize = size
			offset += size
			rest = rest[size:]
		}
		if rest != "" && isKebabAlphabet(r) {
			offset -= prevSize
		}
		return offset
	case isKebabAlphabet(r):
		return first + size + runLength(rest[size:], r, isLowerAlphabet)
	}
	return first
}

// runLength is the byte length of the prefix of s whose runes satisfy keep
// (invalid bytes count as the previous rune, as in xstrings).
func runLength(s string, prev rune, keep func(rune) bool) int {
	n := 0
	for s != "" {
		r, size := nextValidRune(s, prev)
		if !keep(r) {
			break
		}
		prev = r
		n += size
		s = s[size:]
	}
	return n
}

// nextValidRune skips invalid UTF-8, returning prev when nothing valid is
// left; size counts the skipped bytes too.
func nextValidRune(s string, prev rune) (rune, int) {
	size := 0
	for s != "" {
		r, sz := utf8.DecodeRuneInString(s)
		size += sz
		if r != utf8.RuneError {
			return r, size
		}
		s = s[sz:]
	}
	return prev, size
}

// writeKebabWord lower-cases upper-case words and turns connectors into '-'.
func writeKebabWord(b *strings.Builder, wt kebabWordType, word string) {
	if wt != kebabUpper && wt != kebabConnector {
		b.WriteString(word)
		return
	}
	for _, r := range word {
		switch {
		case isKebabConnector(r):
			b.WriteByte('-')
		case unicode.IsUpper(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
}

func isKebabConnector(r rune) bool { return r == '-' || r == '_' || unicode.IsSpace(r) }

func isLowerAlphabet(r rune) bool { return isKebabAlphabet(r) && !unicode.IsUpper(r) }

func isKebabOther(r rune) bool {
	return !isKebabConnector(r) && !isKebabAlphabet(r) && !unicode.IsNumber(r) && !unicode.IsPunct(r)
}

// isKebabAlphabet is a letter that is not a CJK ideograph (xstrings
// isAlphabet).
func isKebabAlphabet(r rune) bool {
	if !unicode.IsLetter(r) {
		return false
	}
	switch {
	case r < '\u3400':
		return true
	case r >= '\u4E00' && r <= '\u9FCC', r >= '\u3400' && r <= '\u4D85', r >= '\U00020000' && r <= '\U0002B81D':
		return false
	}
	return true
}
