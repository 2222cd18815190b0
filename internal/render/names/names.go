// Package names checks Kubernetes names, label keys and label values the
// way apimachinery's validation does, without its regular expressions for
// the values that pass.
//
// Every workload render checks a dozen names and labels, and apimachinery
// matches each with a backtracking regexp, which was most of validation's
// time. Each function here first runs a byte-by-byte check of the same
// grammar; only a value that fails it (an invalid value, or one the fast
// check does not recognise) goes to apimachinery, whose messages the
// findings quote. So the answer is always apimachinery's: the fast checks
// may only be stricter than the grammar, never looser (names_test.go
// compares them with apimachinery).
package names

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Length limits of the grammars (apimachinery's constants).
const (
	dns1123LabelMaxLength     = validation.DNS1123LabelMaxLength
	dns1123SubdomainMaxLength = validation.DNS1123SubdomainMaxLength
	labelNameMaxLength        = 63
)

// DNS1123Label is validation.IsDNS1123Label.
func DNS1123Label(value string) []string {
	return fastOrApimachinery(value, isShortDNS1123Label, validation.IsDNS1123Label)
}

// DNS1123Subdomain is validation.IsDNS1123Subdomain.
func DNS1123Subdomain(value string) []string {
	return fastOrApimachinery(value, isDNS1123Subdomain, validation.IsDNS1123Subdomain)
}

// LabelKey is content.IsLabelKey: an optional DNS-1123 subdomain prefix
// and '/', then a name.
func LabelKey(value string) []string {
	return fastOrApimachinery(value, isLabelKey, content.IsLabelKey)
}

// LabelValue is content.IsLabelValue: empty, or a name.
func LabelValue(value string) []string {
	return fastOrApimachinery(value, isLabelValue, content.IsLabelValue)
}

// EnvVarName is validation.IsEnvVarName.
func EnvVarName(value string) []string {
	return fastOrApimachinery(value, isEnvVarName, validation.IsEnvVarName)
}

// fastOrApimachinery is the pattern of every check here: a value the fast
// check accepts is valid; any other goes to apimachinery's check, so the
// answer, and the messages findings quote, are always apimachinery's.
func fastOrApimachinery(value string, fast func(string) bool, apimachinery func(string) []string) []string {
	if fast(value) {
		return nil
	}
	return apimachinery(value)
}

func isLowerAlphanumeric(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

func isAlphanumeric(c byte) bool { return isLowerAlphanumeric(c) || 'A' <= c && c <= 'Z' }

// isDNS1123Label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, any length (callers bound
// it: a label on its own is at most 63, inside a subdomain the whole is at
// most 253).
func isDNS1123Label(s string) bool {
	if s == "" || !isLowerAlphanumeric(s[0]) || !isLowerAlphanumeric(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isLowerAlphanumeric(c) && c != '-' {
			return false
		}
	}
	return true
}

// isShortDNS1123Label: a DNS-1123 label of at most 63 bytes, the grammar
// of a label on its own.
func isShortDNS1123Label(s string) bool {
	return len(s) <= dns1123LabelMaxLength && isDNS1123Label(s)
}

// isDNS1123Subdomain: DNS-1123 labels joined by '.', at most 253 bytes.
func isDNS1123Subdomain(s string) bool {
	if s == "" || len(s) > dns1123SubdomainMaxLength {
		return false
	}
	for {
		label, rest, more := strings.Cut(s, ".")
		if !isDNS1123Label(label) {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}

// isLabelName: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63 bytes.
func isLabelName(s string) bool {
	if s == "" || len(s) > labelNameMaxLength || !isAlphanumeric(s[0]) || !isAlphanumeric(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlphanumeric(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isLabelValue: empty, or a label name.
func isLabelValue(s string) bool { return s == "" || isLabelName(s) }

func isLabelKey(s string) bool {
	prefix, name, prefixed := strings.Cut(s, "/")
	if !prefixed {
		return isLabelName(s)
	}
	return isDNS1123Subdomain(prefix) && isLabelName(name)
}

// isEnvVarName: [-._a-zA-Z][-._a-zA-Z0-9]*, and not ".", nor starting
// with "..".
func isEnvVarName(s string) bool {
	if s == "" || s == "." || strings.HasPrefix(s, "..") || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlphanumeric(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}
