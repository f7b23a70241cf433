package lifecycle

import (
	"testing"
	"time"
)

// Transition cases join the shared tables, so TestParseRejects and
// TestParseAccepts check them and FuzzParse starts from them.
func init() {
	invalidCases = append(invalidCases, transitionInvalidCases...)
	validCases = append(validCases, transitionValidCases...)
	invalidCases = append(invalidCases, encodingInvalidCases...)
	validCases = append(validCases, encodingValidCases...)
}

func transition(body string) string { return `<Transition>` + body + `</Transition>` }
func noncurrentTransition(body string) string {
	return `<NoncurrentVersionTransition>` + body + `</NoncurrentVersionTransition>`
}

var transitionInvalidCases = []invalidCase{
	// One Transition.
	{"transition days and date", fixtureDoc(fixtureRule(transition(`<Days>30</Days><Date>2027-01-01T00:00:00Z</Date><StorageClass>GLACIER</StorageClass>`))), CodeMalformedXML, `rule "r1"`, "both Days and Date"},
	{"transition without timing", fixtureDoc(fixtureRule(transition(`<StorageClass>GLACIER</StorageClass>`))), CodeMalformedXML, `rule "r1"`, "needs Days or Date"},
	{"transition without class", fixtureDoc(fixtureRule(transition(`<Days>30</Days>`))), CodeMalformedXML, `rule "r1"`, "<Transition> needs <StorageClass>"},
	{"transition to STANDARD", fixtureDoc(fixtureRule(transition(`<Days>30</Days><StorageClass>STANDARD</StorageClass>`))), CodeMalformedXML, `rule "r1"`, `StorageClass is "STANDARD"; want one of GLACIER, STANDARD_IA`},
	{"transition class lower case", fixtureDoc(fixtureRule(transition(`<Days>30</Days><StorageClass>glacier</StorageClass>`))), CodeMalformedXML, `rule "r1"`, `"glacier"`},
	{"transition days negative", fixtureDoc(fixtureRule(transition(`<Days>-1</Days><StorageClass>GLACIER</StorageClass>`))), CodeInvalidArgument, `rule "r1"`, "Transition Days is -1; it must be 0 or more"},
	{"transition days not a number", fixtureDoc(fixtureRule(transition(`<Days>soon</Days><StorageClass>GLACIER</StorageClass>`))), CodeMalformedXML, `rule "r1"`, "not an integer"},
	{"transition days over the cap", fixtureDoc(fixtureRule(transition(`<Days>36501</Days><StorageClass>GLACIER</StorageClass>`))), CodeInvalidArgument, `rule "r1"`, "at most 36500"},
	{"STANDARD_IA before 30 days", fixtureDoc(fixtureRule(transition(`<Days>29</Days><StorageClass>STANDARD_IA</StorageClass>`))), CodeInvalidArgument, `rule "r1"`, "Transition Days is 29 for StorageClass STANDARD_IA; it must be 30 or more"},
	{"ONEZONE_IA at 0 days", fixtureDoc(fixtureRule(transition(`<Days>0</Days><StorageClass>ONEZONE_IA</StorageClass>`))), CodeInvalidArgument, `rule "r1"`, "it must be 30 or more"},
	{"transition date not midnight", fixtureDoc(fixtureRule(transition(`<Date>2027-01-01T12:00:00Z</Date><StorageClass>GLACIER</StorageClass>`))), CodeInvalidArgument, `rule "r1"`, `Transition Date "2027-01-01T12:00:00Z" must be at midnight UTC`},
	{"transition date bare day", fixtureDoc(fixtureRule(transition(`<Date>2027-01-01</Date><StorageClass>GLACIER</StorageClass>`))), CodeInvalidArgument, `rule "r1"`, "Transition Date"},
	{"transition Newer element", fixtureDoc(fixtureRule(transition(`<Days>1</Days><StorageClass>GLACIER</StorageClass><NewerNoncurrentVersions>1</NewerNoncurrentVersions>`))), CodeMalformedXML, `rule "r1"`, "<NewerNoncurrentVersions> in <Transition>"},
	{"transition repeated days", fixtureDoc(fixtureRule(transition(`<Days>1</Days><Days>2</Days><StorageClass>GLACIER</StorageClass>`))), CodeMalformedXML, "", "more than once"},

	// Transitions combined.
	{"two transitions to one class", fixtureDoc(fixtureRule(transition(`<Days>30</Days><StorageClass>GLACIER</StorageClass>`) + transition(`<Days>60</Days><StorageClass>GLACIER</StorageClass>`))), CodeInvalidRequest, `rule "r1"`, "two Transition actions name StorageClass GLACIER"},
	{"transitions mix days and date", fixtureDoc(fixtureRule(transition(`<Days>30</Days><StorageClass>GLACIER</StorageClass>`) + transition(`<Date>2027-01-01T00:00:00Z</Date><StorageClass>DEEP_ARCHIVE</StorageClass>`))), CodeInvalidRequest, `rule "r1"`, "Date-based and Days-based"},
	{"expiration days beside transition date", fixtureDoc(fixtureRule(fixtureExpire30 + transition(`<Date>2027-01-01T00:00:00Z</Date><StorageClass>GLACIER</StorageClass>`))), CodeInvalidRequest, `rule "r1"`, "Date-based and Days-based"},
	{"expiration date beside transition days", fixtureDoc(fixtureRule(`<Expiration><Date>2027-01-01T00:00:00Z</Date></Expiration>` + transition(`<Days>1</Days><StorageClass>GLACIER</StorageClass>`))), CodeInvalidRequest, `rule "r1"`, "Date-based and Days-based"},
	{"expiration days not after transition", fixtureDoc(fixtureRule(fixtureExpire30 + transition(`<Days>30</Days><StorageClass>GLACIER</StorageClass>`))), CodeInvalidArgument, `rule "r1"`, "Expiration Days (30) must be greater than the Days of every Transition (GLACIER has 30)"},
	{"expiration date not after transition", fixtureDoc(fixtureRule(`<Expiration><Date>2027-01-01T00:00:00Z</Date></Expiration>` + transition(`<Date>2027-01-01T00:00:00Z</Date><StorageClass>GLACIER</StorageClass>`))), CodeInvalidArgument, `rule "r1"`, "Expiration Date (2027-01-01) must be later"},

	// NoncurrentVersionTransition.
	{"noncurrent transition without days", fixtureDoc(fixtureRule(noncurrentTransition(`<StorageClass>GLACIER</StorageClass>`))), CodeMalformedXML, `rule "r1"`, "needs <NoncurrentDays>"},
	{"noncurrent transition without class", fixtureDoc(fixtureRule(noncurrentTransition(`<NoncurrentDays>1</NoncurrentDays>`))), CodeMalformedXML, `rule "r1"`, "<NoncurrentVersionTransition> needs <StorageClass>"},
	{"noncurrent transition days negative", fixtureDoc(fixtureRule(noncurrentTransition(`<NoncurrentDays>-2</NoncurrentDays><StorageClass>GLACIER</StorageClass>`))), CodeInvalidArgument, `rule "r1"`, "NoncurrentDays is -2; it must be 0 or more"},
	{"noncurrent transition STANDARD_IA early", fixtureDoc(fixtureRule(noncurrentTransition(`<NoncurrentDays>7</NoncurrentDays><StorageClass>STANDARD_IA</StorageClass>`))), CodeInvalidArgument, `rule "r1"`, "it must be 30 or more"},
	{"noncurrent transition newer zero", fixtureDoc(fixtureRule(noncurrentTransition(`<NoncurrentDays>1</NoncurrentDays><StorageClass>GLACIER</StorageClass><NewerNoncurrentVersions>0</NewerNoncurrentVersions>`))), CodeInvalidArgument, `rule "r1"`, "between 1 and 100"},
	{"noncurrent transition newer over 100", fixtureDoc(fixtureRule(noncurrentTransition(`<NoncurrentDays>1</NoncurrentDays><StorageClass>GLACIER</StorageClass><NewerNoncurrentVersions>101</NewerNoncurrentVersions>`))), CodeInvalidArgument, `rule "r1"`, "between 1 and 100"},
	{"noncurrent transition with date", fixtureDoc(fixtureRule(noncurrentTransition(`<NoncurrentDays>1</NoncurrentDays><Date>2027-01-01T00:00:00Z</Date><StorageClass>GLACIER</StorageClass>`))), CodeMalformedXML, `rule "r1"`, "<Date> in <NoncurrentVersionTransition>"},
	{"two noncurrent transitions to one class", fixtureDoc(fixtureRule(noncurrentTransition(`<NoncurrentDays>1</NoncurrentDays><StorageClass>GLACIER_IR</StorageClass>`) + noncurrentTransition(`<NoncurrentDays>9</NoncurrentDays><StorageClass>GLACIER_IR</StorageClass>`))), CodeInvalidRequest, `rule "r1"`, "two NoncurrentVersionTransition actions name StorageClass GLACIER_IR"},
	{"noncurrent expiration not after transition", fixtureDoc(fixtureRule(`<NoncurrentVersionExpiration><NoncurrentDays>30</NoncurrentDays></NoncurrentVersionExpiration>` + noncurrentTransition(`<NoncurrentDays>30</NoncurrentDays><StorageClass>GLACIER</StorageClass>`))), CodeInvalidArgument, `rule "r1"`, "NoncurrentDays (30) must be greater than the NoncurrentDays of every NoncurrentVersionTransition (GLACIER has 30)"},
}

var transitionValidCases = []validCase{
	{
		// A production-shaped configuration: a transition-only rule beside an
		// expiration; the transition rule compiles to no action.
		name: "transition-only rule beside an expiration",
		xml: fixtureDoc(`<ID>tier</ID><Status>Enabled</Status><Filter><Prefix>archive/</Prefix></Filter>`+transition(`<Days>30</Days><StorageClass>GLACIER</StorageClass>`),
			`<ID>tmp</ID><Status>Enabled</Status><Filter><Prefix>tmp/</Prefix></Filter><Expiration><Days>1</Days></Expiration>`),
		want: []Rule{
			{ID: "tier", Enabled: true, Filter: Filter{Prefix: "archive/"}, Transitions: []Transition{{Days: 30, StorageClass: "GLACIER"}}},
			{ID: "tmp", Enabled: true, Filter: Filter{Prefix: "tmp/"}, ExpirationDays: 1},
		},
	},
	{
		name: "noncurrent transition only",
		xml:  fixtureDoc(fixtureRule(noncurrentTransition(`<NoncurrentDays>30</NoncurrentDays><StorageClass>GLACIER</StorageClass>`))),
		want: []Rule{{ID: "r1", Enabled: true, NoncurrentTransitions: []NoncurrentTransition{{NoncurrentDays: 30, StorageClass: "GLACIER"}}}},
	},
	{
		name: "every class, day 0 where allowed, 30 into infrequent access",
		xml: fixtureDoc(fixtureRule(transition(`<Days>0</Days><StorageClass>INTELLIGENT_TIERING</StorageClass>`) +
			transition(`<Days>30</Days><StorageClass>STANDARD_IA</StorageClass>`) +
			transition(`<Days>30</Days><StorageClass>ONEZONE_IA</StorageClass>`) +
			transition(`<Days>0</Days><StorageClass>GLACIER_IR</StorageClass>`) +
			transition(`<Days>90</Days><StorageClass>GLACIER</StorageClass>`) +
			transition(`<Days>180</Days><StorageClass>DEEP_ARCHIVE</StorageClass>`) +
			`<Expiration><Days>181</Days></Expiration>`)),
		want: []Rule{{ID: "r1", Enabled: true, ExpirationDays: 181, Transitions: []Transition{
			{Days: 0, StorageClass: "INTELLIGENT_TIERING"}, {Days: 30, StorageClass: "STANDARD_IA"}, {Days: 30, StorageClass: "ONEZONE_IA"},
			{Days: 0, StorageClass: "GLACIER_IR"}, {Days: 90, StorageClass: "GLACIER"}, {Days: 180, StorageClass: "DEEP_ARCHIVE"},
		}}},
	},
	{
		name: "date transitions before a date expiration",
		xml: fixtureDoc(fixtureRule(transition(`<Date>2027-01-01T00:00:00.000Z</Date><StorageClass>GLACIER</StorageClass>`) +
			`<Expiration><Date>2027-01-02T00:00:00Z</Date></Expiration>`)),
		want: []Rule{{ID: "r1", Enabled: true, ExpirationDate: time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC),
			Transitions: []Transition{{Date: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), StorageClass: "GLACIER"}}}},
	},
	{
		name: "noncurrent transitions with newer versions before a noncurrent expiration, delete marker expiry beside a date transition",
		xml: fixtureDoc(fixtureRule(noncurrentTransition(`<NoncurrentDays>0</NoncurrentDays><StorageClass>GLACIER_IR</StorageClass>`) +
			noncurrentTransition(`<NoncurrentDays>30</NoncurrentDays><StorageClass>STANDARD_IA</StorageClass><NewerNoncurrentVersions>2</NewerNoncurrentVersions>`) +
			`<NoncurrentVersionExpiration><NoncurrentDays>31</NoncurrentDays></NoncurrentVersionExpiration>` +
			`<Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>` +
			transition(`<Date>2027-01-01T00:00:00Z</Date><StorageClass>DEEP_ARCHIVE</StorageClass>`))),
		want: []Rule{{ID: "r1", Enabled: true, NoncurrentDays: 31, ExpiredObjectDeleteMarker: true,
			Transitions: []Transition{{Date: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), StorageClass: "DEEP_ARCHIVE"}},
			NoncurrentTransitions: []NoncurrentTransition{
				{NoncurrentDays: 0, StorageClass: "GLACIER_IR"},
				{NoncurrentDays: 30, NewerNoncurrentVersions: 2, StorageClass: "STANDARD_IA"},
			}}},
	},
	{
		name: "the same class in a Transition and a NoncurrentVersionTransition; a disabled transition rule",
		xml: fixtureDoc(fixtureRule(transition(`<Days>5</Days><StorageClass>GLACIER</StorageClass>`)+noncurrentTransition(`<NoncurrentDays>5</NoncurrentDays><StorageClass>GLACIER</StorageClass>`)),
			`<ID>off</ID><Status>Disabled</Status><Filter/>`+transition(`<Days>1</Days><StorageClass>GLACIER</StorageClass>`)),
		want: []Rule{
			{ID: "r1", Enabled: true, Transitions: []Transition{{Days: 5, StorageClass: "GLACIER"}},
				NoncurrentTransitions: []NoncurrentTransition{{NoncurrentDays: 5, StorageClass: "GLACIER"}}},
			{ID: "off", Transitions: []Transition{{Days: 1, StorageClass: "GLACIER"}}},
		},
	},
}

// The document gate: a UTF-8 byte order mark and an XML declaration of
// UTF-8 or US-ASCII, in any case, are accepted; anything else declared is
// refused by name.
const bom = "\xEF\xBB\xBF"

var oneRule = `<LifecycleConfiguration><Rule><ID>a</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`

var encodingValidCases = []validCase{
	{name: "byte order mark", xml: bom + oneRule, want: []Rule{{ID: "a", Enabled: true, ExpirationDays: 1}}},
	{name: "byte order mark and declaration", xml: bom + `<?xml version="1.0" encoding="UTF-8"?>` + oneRule, want: []Rule{{ID: "a", Enabled: true, ExpirationDays: 1}}},
	{name: "declaration utf-8 lower case", xml: `<?xml version="1.0" encoding="utf-8"?>` + "\n" + oneRule, want: []Rule{{ID: "a", Enabled: true, ExpirationDays: 1}}},
	{name: "declaration without encoding", xml: `<?xml version="1.0"?>` + oneRule, want: []Rule{{ID: "a", Enabled: true, ExpirationDays: 1}}},
	{name: "declaration US-ASCII", xml: `<?xml version="1.0" encoding="US-ASCII"?>` + oneRule, want: []Rule{{ID: "a", Enabled: true, ExpirationDays: 1}}},
	{name: "declaration us-ascii lower case, standalone", xml: `<?xml version='1.0' encoding='us-ascii' standalone='yes'?>` + oneRule, want: []Rule{{ID: "a", Enabled: true, ExpirationDays: 1}}},
	{name: "declaration Utf-8 mixed case, non-ASCII rule ID",
		xml:  `<?xml version="1.0" encoding="Utf-8"?><LifecycleConfiguration><Rule><ID>règle</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`,
		want: []Rule{{ID: "règle", Enabled: true, ExpirationDays: 1}}},
}

var encodingInvalidCases = []invalidCase{
	{"declared ISO-8859-1", `<?xml version="1.0" encoding="ISO-8859-1"?>` + oneRule, CodeMalformedXML, "", `declares encoding "ISO-8859-1"; a lifecycle configuration must be UTF-8 or US-ASCII`},
	{"declared UTF-16", bom + `<?xml version="1.0" encoding="UTF-16"?>` + oneRule, CodeMalformedXML, "", `declares encoding "UTF-16"`},
	{"declared windows-1252", `<?xml version="1.0" encoding="windows-1252"?>` + oneRule, CodeMalformedXML, "", `"windows-1252"`},
	{"US-ASCII declared, UTF-8 bytes", `<?xml version="1.0" encoding="US-ASCII"?><LifecycleConfiguration><Rule><ID>règle</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>`, CodeMalformedXML, "", "byte 0xC3 is not US-ASCII"},
	{"declaration after whitespace", "\n" + `<?xml version="1.0"?>` + oneRule, CodeMalformedXML, "", "must come first"},
	{"declaration after a comment", `<!-- c --><?xml version="1.0"?>` + oneRule, CodeMalformedXML, "", "must come first"},
	{"two byte order marks", bom + bom + oneRule, CodeMalformedXML, "", "outside the root"},
	{"XML 1.1", `<?xml version="1.1"?>` + oneRule, CodeMalformedXML, "", "version"},
}

// Transitions describe themselves in notices.
func TestTransitionString(t *testing.T) {
	for _, tc := range []struct {
		got  string
		want string
	}{
		{Transition{Days: 30, StorageClass: "GLACIER"}.String(), "Transition to GLACIER 30 days after creation"},
		{Transition{Days: 1, StorageClass: "GLACIER_IR"}.String(), "Transition to GLACIER_IR 1 day after creation"},
		{Transition{Date: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), StorageClass: "DEEP_ARCHIVE"}.String(), "Transition to DEEP_ARCHIVE on 2027-01-01"},
		{NoncurrentTransition{NoncurrentDays: 7, StorageClass: "STANDARD_IA"}.String(), "NoncurrentVersionTransition to STANDARD_IA 7 days after becoming noncurrent"},
		{NoncurrentTransition{NoncurrentDays: 0, NewerNoncurrentVersions: 1, StorageClass: "GLACIER"}.String(), "NoncurrentVersionTransition to GLACIER 0 days after becoming noncurrent, keeping 1 newer noncurrent version"},
	} {
		if tc.got != tc.want {
			t.Errorf("String() = %q, want %q", tc.got, tc.want)
		}
	}
}
