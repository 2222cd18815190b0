package tfconv

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Validators for strings the Kubernetes API or client-go would otherwise
// reject only at apply (or, for a data source, with no attribute to point
// at). Each one runs at validate time, needs no cluster, and says what is
// allowed. Unknown and null values are skipped: they are checked once known.

// stringCheck adapts a check function to validator.String. check returns
// the reason a value is invalid, or "" when it is fine.
type stringCheck struct {
	summary, allowed string
	check            func(string) string
	// sensitive leaves the value out of the diagnostic (keys, tokens).
	sensitive bool
}

func (v stringCheck) Description(context.Context) string { return "Allowed: " + v.allowed }

func (v stringCheck) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v stringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	value := req.ConfigValue.ValueString()
	reason := v.check(value)
	if reason == "" {
		return
	}
	if !v.sensitive {
		reason = strconv.Quote(value) + ": " + reason
	}
	resp.Diagnostics.AddAttributeError(req.Path, v.summary, reason+". Allowed: "+v.allowed+".")
}

// LabelSelector accepts what `kubectl get -l` accepts: the node list call
// fails on anything else, long after the plan.
func LabelSelector() validator.String {
	return stringCheck{
		summary: "Invalid label selector",
		allowed: "a Kubernetes label selector such as \"cloud.google.com/gke-nodepool=a100\", " +
			"\"example.com/team in (ml,research)\" or \"!example.com/excluded\", requirements separated by commas",
		check: func(s string) string {
			if _, err := labels.Parse(s); err != nil {
				return err.Error()
			}
			return ""
		},
	}
}

// NonNegativeDuration is a Go duration of zero or more, as the timeouts
// block takes them.
func NonNegativeDuration() validator.String {
	return stringCheck{
		summary: "Invalid duration",
		allowed: "a duration of zero or more such as \"0s\", \"90s\" or \"5m\" (units ns, us, ms, s, m, h)",
		check: func(s string) string {
			d, err := time.ParseDuration(s)
			switch {
			case err != nil:
				return strings.TrimPrefix(err.Error(), "time: ")
			case d < 0:
				return "negative"
			}
			return ""
		},
	}
}

// DNSLabel is a Kubernetes namespace name.
func DNSLabel(what string) validator.String {
	return kubernetesName(what, "a DNS-1123 label: at most 63 lower-case letters, digits or '-', starting and "+
		"ending with a letter or digit, e.g. \"gpu-operator\"", validation.IsDNS1123Label)
}

// DNSSubdomain is a Kubernetes object name such as a ConfigMap's.
func DNSSubdomain(what string) validator.String {
	return kubernetesName(what, "a DNS-1123 subdomain: at most 253 lower-case letters, digits, '-' or '.', "+
		"starting and ending with a letter or digit, e.g. \"device-plugin-config\"", validation.IsDNS1123Subdomain)
}

// kubernetesName checks a name with apimachinery's own validation, which
// the API server runs on the object.
func kubernetesName(what, allowed string, validate func(string) []string) validator.String {
	return stringCheck{
		summary: "Invalid " + what,
		allowed: allowed,
		check:   func(s string) string { return strings.Join(validate(s), "; ") },
	}
}

// PEMCertificate accepts PEM text whose CERTIFICATE blocks all parse, as
// client-go needs for the CA bundle and the client certificate; otherwise
// the first request fails ("unable to parse bytes as PEM block").
func PEMCertificate(what string) validator.String {
	return pemCheck(what, []string{"CERTIFICATE"}, func(b *pem.Block) string {
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			return "a CERTIFICATE block does not parse: " + err.Error()
		}
		return ""
	})
}

// PEMPrivateKey accepts PEM text with a private key block. The key is not
// parsed: its type is the client certificate's business, checked by
// client-go against the certificate.
func PEMPrivateKey(what string) validator.String {
	return pemCheck(what, []string{"PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY"}, nil)
}

// pemCheck finds a block of one of types and runs parse (if any) on each
// such block. "" is accepted: the provider reads it as unset.
func pemCheck(what string, types []string, parse func(*pem.Block) string) validator.String {
	return stringCheck{
		summary:   "Invalid " + what,
		sensitive: true,
		allowed: "PEM text with a " + strings.Join(types, " or ") + " block (\"-----BEGIN ...\"), " +
			"e.g. base64decode() of a kubeconfig's *-data field",
		check: func(s string) string {
			found := false
			for rest := []byte(s); ; {
				block, next := pem.Decode(rest)
				if block == nil {
					break
				}
				rest = next
				if !slices.Contains(types, block.Type) {
					continue
				}
				found = true
				if parse == nil {
					continue
				}
				if reason := parse(block); reason != "" {
					return reason
				}
			}
			if !found && s != "" {
				return "no PEM " + strings.Join(types, " or ") + " block found"
			}
			return ""
		},
	}
}

// APIServerURL accepts what client-go accepts as a host, and only the http
// and https schemes it can speak: "ftp://..." is silently accepted by
// client-go and fails only when the first request is made.
func APIServerURL() validator.String {
	return stringCheck{
		summary: "Invalid host",
		allowed: "the API server's URL, https://host[:port][/path] (http:// only for a local proxy), or host:port",
		check:   checkAPIServerURL,
	}
}

func checkAPIServerURL(s string) string {
	if s == "" {
		return "" // unset, as the provider reads it
	}
	withScheme := s
	if !strings.Contains(s, "://") {
		withScheme = "https://" + s // what client-go does without a scheme
	}
	u, err := url.Parse(withScheme)
	switch {
	case err != nil:
		return err.Error()
	case u.Scheme != "https" && u.Scheme != "http":
		return "scheme " + strconv.Quote(u.Scheme) + " is not http or https"
	case u.Host == "":
		return "no host name"
	}
	return ""
}

// LabelKeyOrName is a node label key such as "example.com/rack", or a name
// such as "block" (which has the same form as a label key without prefix):
// topology levels are either.
func LabelKeyOrName() validator.String {
	return stringCheck{
		summary: "Invalid topology level",
		allowed: "a level name such as \"block\", or a node label key such as \"example.com/rack\" (an optional " +
			"DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.')",
		check: func(s string) string { return strings.Join(validation.IsQualifiedName(s), "; ") },
	}
}
