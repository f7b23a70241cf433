package lifecycle

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// doc wraps rule bodies in a namespaced LifecycleConfiguration.
func fixtureDoc(rules ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
	for _, r := range rules {
		b.WriteString("<Rule>" + r + "</Rule>")
	}
	b.WriteString("</LifecycleConfiguration>")
	return b.String()
}

// rule is a rule body with ID r1, Enabled, an empty Filter and the given
// actions.
func fixtureRule(actions string) string {
	return `<ID>r1</ID><Status>Enabled</Status><Filter></Filter>` + actions
}

// ruleWithFilter is a rule body with ID r1, Enabled, the given Filter body
// and actions.
func fixtureRuleFilter(filter, actions string) string {
	return `<ID>r1</ID><Status>Enabled</Status><Filter>` + filter + `</Filter>` + actions
}

const fixtureExpire30 = `<Expiration><Days>30</Days></Expiration>`

func int64Ptr(v int64) *int64 { return &v }

type invalidCase struct {
	name     string
	xml      string
	code     string
	rule     string // how the message must name the rule; "" for document errors
	contains string // a fragment the message must hold
}

var invalidCases = []invalidCase{
	// Document structure.
	{"not xml", `this is not xml`, CodeMalformedXML, "", ""},
	{"empty input", ``, CodeMalformedXML, "", "no root"},
	{"unclosed", `<LifecycleConfiguration><Rule>`, CodeMalformedXML, "", ""},
	{"other root", `<CORSConfiguration><Rule></Rule></CORSConfiguration>`, CodeMalformedXML, "", "root element"},
	{"foreign root namespace", `<LifecycleConfiguration xmlns="urn:other"><Rule>` + fixtureRule(fixtureExpire30) + `</Rule></LifecycleConfiguration>`, CodeMalformedXML, "", "namespace"},
	{"second root", fixtureDoc(fixtureRule(fixtureExpire30)) + `<LifecycleConfiguration/>`, CodeMalformedXML, "", "after the root"},
	{"text after root", fixtureDoc(fixtureRule(fixtureExpire30)) + `junk`, CodeMalformedXML, "", "outside the root"},
	{"doctype", `<!DOCTYPE x [<!ENTITY a "b">]>` + fixtureDoc(fixtureRule(fixtureExpire30)), CodeMalformedXML, "", "DTD"},
	{"unknown top-level element", `<LifecycleConfiguration><Foo/><Rule>` + fixtureRule(fixtureExpire30) + `</Rule></LifecycleConfiguration>`, CodeMalformedXML, "", "<Foo>"},
	{"zero rules", fixtureDoc(), CodeMalformedXML, "", "no <Rule>"},
	{"too many rules", fixtureTooManyRules(), CodeInvalidArgument, "", "at most 1000"},

	// Rule structure.
	{"unknown rule element", fixtureDoc(fixtureRule(fixtureExpire30 + `<Foo>1</Foo>`)), CodeMalformedXML, `rule "r1"`, "unknown element <Foo> in <Rule>"},
	{"unknown expiration element", fixtureDoc(fixtureRule(`<Expiration><Days>30</Days><Weeks>1</Weeks></Expiration>`)), CodeMalformedXML, `rule "r1"`, "<Weeks>"},
	{"unknown element in transition", fixtureDoc(fixtureRule(fixtureExpire30 + `<Transition><Days>1</Days><Tier>x</Tier></Transition>`)), CodeMalformedXML, `rule "r1"`, "<Tier>"},
	{"text in rule", fixtureDoc(fixtureRule(fixtureExpire30 + `stray`)), CodeMalformedXML, `rule "r1"`, "unexpected text"},
	{"repeated days", fixtureDoc(fixtureRule(`<Expiration><Days>30</Days><Days>40</Days></Expiration>`)), CodeMalformedXML, "", "more than once"},
	{"foreign namespace child", fixtureDoc(fixtureRule(`<Expiration><x:Days xmlns:x="urn:other">30</x:Days></Expiration>`)), CodeMalformedXML, "", "namespace"},
	{"prefix and filter", fixtureDoc(`<ID>r1</ID><Status>Enabled</Status><Prefix>a/</Prefix><Filter></Filter>` + fixtureExpire30), CodeMalformedXML, `rule "r1"`, "both <Prefix> and <Filter>"},
	{"neither prefix nor filter", fixtureDoc(`<ID>r1</ID><Status>Enabled</Status>` + fixtureExpire30), CodeMalformedXML, `rule "r1"`, "missing <Filter>"},

	// Rule identity and status.
	{"duplicate id", fixtureDoc(fixtureRule(fixtureExpire30), fixtureRule(fixtureExpire30)), CodeInvalidArgument, `rule "r1"`, "rule #1 has the same ID"},
	{"id too long", fixtureDoc(`<ID>` + strings.Repeat("x", 256) + `</ID><Status>Enabled</Status><Filter/>` + fixtureExpire30), CodeInvalidArgument, `rule "xxx`, "at most 255"},
	{"status lower case", fixtureDoc(`<ID>r1</ID><Status>enabled</Status><Filter/>` + fixtureExpire30), CodeMalformedXML, `rule "r1"`, "Status"},
	{"status missing", fixtureDoc(`<ID>r1</ID><Filter/>` + fixtureExpire30), CodeMalformedXML, `rule "r1"`, "<Status>"},
	{"rule without id named by position", fixtureDoc(fixtureRule(fixtureExpire30), `<Status>Enabled</Status><Filter/><Expiration><Days>0</Days></Expiration>`), CodeInvalidArgument, "rule #2", "positive integer"},

	// Expiration.
	{"days zero", fixtureDoc(fixtureRule(`<Expiration><Days>0</Days></Expiration>`)), CodeInvalidArgument, `rule "r1"`, "Expiration Days"},
	{"days negative", fixtureDoc(fixtureRule(`<Expiration><Days>-3</Days></Expiration>`)), CodeInvalidArgument, `rule "r1"`, "positive integer"},
	{"days not a number", fixtureDoc(fixtureRule(`<Expiration><Days>ten</Days></Expiration>`)), CodeMalformedXML, `rule "r1"`, "not an integer"},
	{"days overflow", fixtureDoc(fixtureRule(`<Expiration><Days>99999999999</Days></Expiration>`)), CodeInvalidArgument, `rule "r1"`, "out of range"},
	{"date not midnight", fixtureDoc(fixtureRule(`<Expiration><Date>2027-01-01T10:00:00Z</Date></Expiration>`)), CodeInvalidArgument, `rule "r1"`, "midnight UTC"},
	{"date with offset", fixtureDoc(fixtureRule(`<Expiration><Date>2027-01-01T00:00:00+02:00</Date></Expiration>`)), CodeInvalidArgument, `rule "r1"`, "ISO 8601"},
	{"date bare day", fixtureDoc(fixtureRule(`<Expiration><Date>2027-01-01</Date></Expiration>`)), CodeInvalidArgument, `rule "r1"`, "ISO 8601"},
	{"days and date", fixtureDoc(fixtureRule(`<Expiration><Days>1</Days><Date>2027-01-01T00:00:00Z</Date></Expiration>`)), CodeMalformedXML, `rule "r1"`, "both Days and Date"},
	{"delete marker with days", fixtureDoc(fixtureRule(`<Expiration><Days>1</Days><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>`)), CodeMalformedXML, `rule "r1"`, "ExpiredObjectDeleteMarker"},
	{"delete marker with date", fixtureDoc(fixtureRule(`<Expiration><Date>2027-01-01T00:00:00Z</Date><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>`)), CodeMalformedXML, `rule "r1"`, "ExpiredObjectDeleteMarker"},
	{"delete marker not boolean", fixtureDoc(fixtureRule(`<Expiration><ExpiredObjectDeleteMarker>yes</ExpiredObjectDeleteMarker></Expiration>`)), CodeMalformedXML, `rule "r1"`, "true or false"},
	{"empty expiration", fixtureDoc(fixtureRule(`<Expiration/>`)), CodeMalformedXML, `rule "r1"`, "empty"},

	// Noncurrent and multipart actions.
	{"noncurrent days zero", fixtureDoc(fixtureRule(`<NoncurrentVersionExpiration><NoncurrentDays>0</NoncurrentDays></NoncurrentVersionExpiration>`)), CodeInvalidArgument, `rule "r1"`, "NoncurrentDays"},
	{"noncurrent empty", fixtureDoc(fixtureRule(`<NoncurrentVersionExpiration></NoncurrentVersionExpiration>`)), CodeMalformedXML, `rule "r1"`, "needs NoncurrentDays"},
	{"newer noncurrent over 100", fixtureDoc(fixtureRule(`<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>101</NewerNoncurrentVersions></NoncurrentVersionExpiration>`)), CodeInvalidArgument, `rule "r1"`, "between 1 and 100"},
	{"newer noncurrent zero", fixtureDoc(fixtureRule(`<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>0</NewerNoncurrentVersions></NoncurrentVersionExpiration>`)), CodeInvalidArgument, `rule "r1"`, "between 1 and 100"},
	// S3 rejects NewerNoncurrentVersions without NoncurrentDays, so under
	// it nothing expires; MinIO would expire the excess versions at once.
	{"newer noncurrent without noncurrent days", fixtureDoc(fixtureRule(`<NoncurrentVersionExpiration><NewerNoncurrentVersions>3</NewerNoncurrentVersions></NoncurrentVersionExpiration>`)), CodeInvalidArgument, `rule "r1"`, "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer"},
	{"abort days zero", fixtureDoc(fixtureRule(`<AbortIncompleteMultipartUpload><DaysAfterInitiation>0</DaysAfterInitiation></AbortIncompleteMultipartUpload>`)), CodeInvalidArgument, `rule "r1"`, "DaysAfterInitiation"},
	{"abort days missing", fixtureDoc(fixtureRule(`<AbortIncompleteMultipartUpload></AbortIncompleteMultipartUpload>`)), CodeMalformedXML, `rule "r1"`, "DaysAfterInitiation"},
	{"no action", fixtureDoc(fixtureRule(``)), CodeInvalidRequest, `rule "r1"`, "at least one action"},
	{"delete marker false only", fixtureDoc(fixtureRule(`<Expiration><ExpiredObjectDeleteMarker>false</ExpiredObjectDeleteMarker></Expiration>`)), CodeInvalidRequest, `rule "r1"`, "at least one action"},

	// Filters.
	{"filter prefix and tag", fixtureDoc(fixtureRuleFilter(`<Prefix>a/</Prefix><Tag><Key>k</Key><Value>v</Value></Tag>`, fixtureExpire30)), CodeMalformedXML, `rule "r1"`, "Prefix, Tag"},
	{"filter prefix and size", fixtureDoc(fixtureRuleFilter(`<Prefix>a/</Prefix><ObjectSizeGreaterThan>1</ObjectSizeGreaterThan>`, fixtureExpire30)), CodeMalformedXML, `rule "r1"`, "at most one"},
	{"and with one predicate", fixtureDoc(fixtureRuleFilter(`<And><Prefix>a/</Prefix></And>`, fixtureExpire30)), CodeMalformedXML, `rule "r1"`, "at least two"},
	{"and empty", fixtureDoc(fixtureRuleFilter(`<And></And>`, fixtureExpire30)), CodeMalformedXML, `rule "r1"`, "at least two"},
	{"and duplicate tag keys", fixtureDoc(fixtureRuleFilter(`<And><Tag><Key>k</Key><Value>1</Value></Tag><Tag><Key>k</Key><Value>2</Value></Tag></And>`, fixtureExpire30)), CodeInvalidRequest, `rule "r1"`, "duplicate tag key"},
	{"tag key empty", fixtureDoc(fixtureRuleFilter(`<Tag><Key></Key><Value>v</Value></Tag>`, fixtureExpire30)), CodeInvalidArgument, `rule "r1"`, "tag key is empty"},
	{"tag key too long", fixtureDoc(fixtureRuleFilter(`<Tag><Key>`+strings.Repeat("k", 129)+`</Key><Value>v</Value></Tag>`, fixtureExpire30)), CodeInvalidArgument, `rule "r1"`, "at most 128"},
	{"tag value too long", fixtureDoc(fixtureRuleFilter(`<Tag><Key>k</Key><Value>`+strings.Repeat("v", 257)+`</Value></Tag>`, fixtureExpire30)), CodeInvalidArgument, `rule "r1"`, "at most 256"},
	{"tag without value", fixtureDoc(fixtureRuleFilter(`<Tag><Key>k</Key></Tag>`, fixtureExpire30)), CodeMalformedXML, `rule "r1"`, "<Key> and <Value>"},
	{"unknown element in tag", fixtureDoc(fixtureRuleFilter(`<Tag><Key>k</Key><Value>v</Value><Extra/></Tag>`, fixtureExpire30)), CodeMalformedXML, `rule "r1"`, "<Extra> in <Tag>"},
	{"size greater negative", fixtureDoc(fixtureRuleFilter(`<ObjectSizeGreaterThan>-1</ObjectSizeGreaterThan>`, fixtureExpire30)), CodeInvalidArgument, `rule "r1"`, "ObjectSizeGreaterThan"},
	{"size less negative", fixtureDoc(fixtureRuleFilter(`<ObjectSizeLessThan>-1</ObjectSizeLessThan>`, fixtureExpire30)), CodeInvalidArgument, `rule "r1"`, "ObjectSizeLessThan"},
	{"size greater not below less", fixtureDoc(fixtureRuleFilter(`<And><ObjectSizeGreaterThan>100</ObjectSizeGreaterThan><ObjectSizeLessThan>100</ObjectSizeLessThan></And>`, fixtureExpire30)), CodeInvalidArgument, `rule "r1"`, "must be less than"},
	{"tag filter with delete marker", fixtureDoc(fixtureRuleFilter(`<Tag><Key>k</Key><Value>v</Value></Tag>`, `<Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>`)), CodeInvalidRequest, `rule "r1"`, "tag filter"},
	{"and tags with abort", fixtureDoc(fixtureRuleFilter(`<And><Prefix>a/</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></And>`, `<AbortIncompleteMultipartUpload><DaysAfterInitiation>7</DaysAfterInitiation></AbortIncompleteMultipartUpload>`)), CodeInvalidRequest, `rule "r1"`, "tag filter"},
}

func fixtureTooManyRules() string {
	rules := make([]string, MaxRules+1)
	for i := range rules {
		rules[i] = fmt.Sprintf(`<ID>r%d</ID><Status>Enabled</Status><Filter/>%s`, i, fixtureExpire30)
	}
	return fixtureDoc(rules...)
}

func TestParseRejects(t *testing.T) {
	for _, tc := range invalidCases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tc.xml))
			if err == nil {
				t.Fatalf("Parse succeeded with %+v, want %s", cfg, tc.code)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if e.Code != tc.code {
				t.Errorf("code = %s, want %s (error: %v)", e.Code, tc.code, err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tc.code+": ") {
				t.Errorf("error %q does not start with %q", msg, tc.code+": ")
			}
			if tc.rule != "" && !strings.Contains(msg, tc.rule) {
				t.Errorf("error %q does not name %s", msg, tc.rule)
			}
			if tc.rule == "" && (e.RuleID != "" || e.RuleIndex != 0) {
				t.Errorf("document error %q names a rule", msg)
			}
			if !strings.Contains(msg, tc.contains) {
				t.Errorf("error %q does not contain %q", msg, tc.contains)
			}
		})
	}
}

type validCase struct {
	name string
	xml  string
	want []Rule
}

var validCases = []validCase{
	{
		name: "legacy rule-level prefix, no namespace",
		xml:  `<LifecycleConfiguration><Rule><ID>logs</ID><Prefix>logs/</Prefix><Status>Disabled</Status><Expiration><Days>30</Days></Expiration></Rule></LifecycleConfiguration>`,
		want: []Rule{{ID: "logs", Filter: Filter{Prefix: "logs/"}, ExpirationDays: 30}},
	},
	{
		name: "BucketLifecycleConfiguration root with namespace",
		xml:  `<BucketLifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Rule><ID>a</ID><Filter><Prefix>tmp/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></BucketLifecycleConfiguration>`,
		want: []Rule{{ID: "a", Enabled: true, Filter: Filter{Prefix: "tmp/"}, ExpirationDays: 1}},
	},
	{
		name: "BucketLifecycleConfiguration root without namespace",
		xml:  `<BucketLifecycleConfiguration><Rule><ID>a</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></BucketLifecycleConfiguration>`,
		want: []Rule{{ID: "a", Enabled: true, ExpirationDays: 1}},
	},
	{
		name: "prefixed S3 namespace",
		xml:  `<s3:LifecycleConfiguration xmlns:s3="http://s3.amazonaws.com/doc/2006-03-01/"><s3:Rule><s3:ID>a</s3:ID><s3:Filter/><s3:Status>Enabled</s3:Status><s3:Expiration><s3:Days>2</s3:Days></s3:Expiration></s3:Rule></s3:LifecycleConfiguration>`,
		want: []Rule{{ID: "a", Enabled: true, ExpirationDays: 2}},
	},
	{
		name: "filter tag",
		xml:  fixtureDoc(fixtureRuleFilter(`<Tag><Key>team</Key><Value>ml</Value></Tag>`, fixtureExpire30)),
		want: []Rule{{ID: "r1", Enabled: true, Filter: Filter{Tags: []Tag{{Key: "team", Value: "ml"}}}, ExpirationDays: 30}},
	},
	{
		name: "filter tag with empty value",
		xml:  fixtureDoc(fixtureRuleFilter(`<Tag><Key>team</Key><Value></Value></Tag>`, fixtureExpire30)),
		want: []Rule{{ID: "r1", Enabled: true, Filter: Filter{Tags: []Tag{{Key: "team"}}}, ExpirationDays: 30}},
	},
	{
		name: "filter size only",
		xml:  fixtureDoc(fixtureRuleFilter(`<ObjectSizeGreaterThan>0</ObjectSizeGreaterThan>`, fixtureExpire30)),
		want: []Rule{{ID: "r1", Enabled: true, Filter: Filter{SizeGreaterThan: int64Ptr(0)}, ExpirationDays: 30}},
	},
	{
		name: "filter and with prefix, tags and sizes; tags sorted",
		xml: fixtureDoc(fixtureRuleFilter(`<And><Prefix>data/</Prefix><Tag><Key>z</Key><Value>1</Value></Tag><Tag><Key>a</Key><Value>2</Value></Tag>`+
			`<ObjectSizeGreaterThan>1024</ObjectSizeGreaterThan><ObjectSizeLessThan>1048576</ObjectSizeLessThan></And>`, fixtureExpire30)),
		want: []Rule{{ID: "r1", Enabled: true, ExpirationDays: 30, Filter: Filter{
			Prefix:          "data/",
			And:             true,
			Tags:            []Tag{{Key: "a", Value: "2"}, {Key: "z", Value: "1"}},
			SizeGreaterThan: int64Ptr(1024),
			SizeLessThan:    int64Ptr(1048576),
		}}},
	},
	{
		name: "and with one tag and empty prefix",
		xml:  fixtureDoc(fixtureRuleFilter(`<And><Prefix></Prefix><Tag><Key>k</Key><Value>v</Value></Tag></And>`, fixtureExpire30)),
		want: []Rule{{ID: "r1", Enabled: true, Filter: Filter{Tags: []Tag{{Key: "k", Value: "v"}}, And: true}, ExpirationDays: 30}},
	},
	{
		name: "date with and without milliseconds",
		xml: fixtureDoc(fixtureRule(`<Expiration><Date>2027-01-01T00:00:00Z</Date></Expiration>`),
			`<ID>r2</ID><Status>Enabled</Status><Filter/><Expiration><Date>2027-06-30T00:00:00.000Z</Date></Expiration>`),
		want: []Rule{
			{ID: "r1", Enabled: true, ExpirationDate: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
			{ID: "r2", Enabled: true, ExpirationDate: time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC)},
		},
	},
	{
		name: "delete marker, noncurrent with newer versions, abort",
		xml: fixtureDoc(fixtureRule(`<Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>` +
			`<NoncurrentVersionExpiration><NoncurrentDays>7</NoncurrentDays><NewerNoncurrentVersions>3</NewerNoncurrentVersions></NoncurrentVersionExpiration>` +
			`<AbortIncompleteMultipartUpload><DaysAfterInitiation>2</DaysAfterInitiation></AbortIncompleteMultipartUpload>`)),
		want: []Rule{{ID: "r1", Enabled: true, ExpiredObjectDeleteMarker: true, NoncurrentDays: 7, NewerNoncurrentVersions: 3, AbortMPUDays: 2}},
	},
	{
		name: "transition beside expiration is kept, not an action",
		xml:  fixtureDoc(fixtureRule(`<Transition><Days>10</Days><StorageClass>GLACIER</StorageClass></Transition>` + fixtureExpire30)),
		want: []Rule{{ID: "r1", Enabled: true, ExpirationDays: 30, Transitions: []Transition{{Days: 10, StorageClass: "GLACIER"}}}},
	},
	{
		name: "rules without IDs, whitespace and comments",
		xml: "<LifecycleConfiguration>\n  <!-- two rules -->\n  <Rule>\n    <Status>Enabled</Status>\n    <Filter>\n      <Prefix>a/</Prefix>\n    </Filter>\n" +
			"    <Expiration>\n      <Days> 5 </Days>\n    </Expiration>\n  </Rule>\n  <Rule><Status>Enabled</Status><Filter/>" + fixtureExpire30 + "</Rule>\n</LifecycleConfiguration>\n",
		want: []Rule{
			{Enabled: true, Filter: Filter{Prefix: "a/"}, ExpirationDays: 5},
			{Enabled: true, ExpirationDays: 30},
		},
	},
	{
		name: "exactly 1000 rules",
		xml:  fixtureThousandRules(),
		want: nil, // only the count is checked
	},
}

func fixtureThousandRules() string {
	rules := make([]string, MaxRules)
	for i := range rules {
		rules[i] = fmt.Sprintf(`<ID>r%d</ID><Status>Enabled</Status><Filter/>%s`, i, fixtureExpire30)
	}
	return fixtureDoc(rules...)
}

func TestParseAccepts(t *testing.T) {
	for _, tc := range validCases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tc.xml))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if tc.want == nil {
				if len(cfg.Rules) != MaxRules {
					t.Fatalf("got %d rules, want %d", len(cfg.Rules), MaxRules)
				}
				return
			}
			if !reflect.DeepEqual(cfg.Rules, tc.want) {
				t.Errorf("rules:\n got %s\nwant %s", dumpRules(cfg.Rules), dumpRules(tc.want))
			}
		})
	}
}

// dump prints rules with size pointers dereferenced.
func dumpRules(rules []Rule) string {
	var b strings.Builder
	for _, r := range rules {
		fmt.Fprintf(&b, "{%+v gt=%s lt=%s} ", r, ptrString(r.Filter.SizeGreaterThan), ptrString(r.Filter.SizeLessThan))
	}
	return b.String()
}

func ptrString(p *int64) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

func TestErrorMatching(t *testing.T) {
	_, err := Parse([]byte(fixtureDoc(fixtureRule(`<Expiration><Days>0</Days></Expiration>`))))
	wrapped := fmt.Errorf("bucket b: %w", err)

	var e *Error
	if !errors.As(wrapped, &e) {
		t.Fatalf("errors.As failed on %v", wrapped)
	}
	if e.Code != CodeInvalidArgument || e.RuleID != "r1" || e.RuleIndex != 1 {
		t.Errorf("got %+v, want InvalidArgument for rule r1 at #1", e)
	}
	if !errors.Is(wrapped, ErrInvalidArgument) {
		t.Errorf("errors.Is(%v, ErrInvalidArgument) = false", wrapped)
	}
	if errors.Is(wrapped, ErrMalformedXML) {
		t.Errorf("errors.Is(%v, ErrMalformedXML) = true", wrapped)
	}
}

func TestErrorString(t *testing.T) {
	for _, tc := range []struct {
		err  Error
		want string
	}{
		{Error{Code: CodeInvalidArgument, RuleID: "r1", RuleIndex: 1, Message: "Days must be a positive integer"},
			`InvalidArgument: rule "r1": Days must be a positive integer`},
		{Error{Code: CodeInvalidRequest, RuleIndex: 2, Message: "at least one action is required"},
			`InvalidRequest: rule #2: at least one action is required`},
		{Error{Code: CodeMalformedXML, Message: "document has no root element"},
			`MalformedXML: document has no root element`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

// FuzzParse checks that Parse never panics and that every failure is an
// *Error with a known code.
func FuzzParse(f *testing.F) {
	for _, tc := range invalidCases {
		f.Add([]byte(tc.xml))
	}
	for _, tc := range validCases {
		f.Add([]byte(tc.xml))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data)
		if err == nil {
			if cfg == nil || len(cfg.Rules) == 0 {
				t.Fatalf("Parse returned no error and no rules")
			}
			for i, r := range cfg.Rules {
				if len(r.Actions()) == 0 && len(r.Transitions) == 0 && len(r.NoncurrentTransitions) == 0 {
					t.Fatalf("rule #%d has no action", i+1)
				}
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v (%T) is not an *Error", err, err)
		}
		switch e.Code {
		case CodeMalformedXML, CodeInvalidArgument, CodeInvalidRequest:
		default:
			t.Fatalf("unknown code %q", e.Code)
		}
	})
}
