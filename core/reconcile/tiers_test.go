package reconcile

import (
	"strings"
	"testing"
)

func TestParseTiers(t *testing.T) {
	good := `{"tiers":[{"name":"WARM","type":"s3","endpoint":"http://127.0.0.1:8333","bucket":"tier","prefix":"cold/","region":"us-east-1","access_key_env":"AK","secret_key_env":"SK"}]}`
	tiers, err := ParseTiers(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	tier, err := tiers["WARM"].Resolve(env)
	if err != nil || tier.AccessKey != "secret-AK" || tier.SecretKey != "secret-SK" {
		t.Fatalf("resolve: %+v %v", tier, err)
	}
	unset := tiers["WARM"]
	unset.SecretKeyEnv = "NOPE"
	if _, err := unset.Resolve(env); err == nil || !strings.Contains(err.Error(), "NOPE") {
		t.Fatalf("unset variable: %v", err)
	}
	bad := []struct{ doc, want string }{
		{`{"tiers":[{"name":"A","type":"glacier","endpoint":"http://h","bucket":"b","access_key_env":"A","secret_key_env":"B"}]}`, "type"},
		{`{"tiers":[{"name":"A","type":"s3","endpoint":"h:1","bucket":"b","access_key_env":"A","secret_key_env":"B"}]}`, "endpoint"},
		{`{"tiers":[{"name":"A","type":"s3","endpoint":"http://h/path","bucket":"b","access_key_env":"A","secret_key_env":"B"}]}`, "endpoint"},
		{`{"tiers":[{"name":"A","type":"s3","endpoint":"http://h","access_key_env":"A","secret_key_env":"B"}]}`, "bucket"},
		{`{"tiers":[{"name":"A","type":"s3","endpoint":"http://h","bucket":"b","access_key_env":"","secret_key_env":"B"}]}`, "environment"},
		{`{"tiers":[{"name":"A","type":"s3","endpoint":"http://h","bucket":"b","access_key":"AKIA","access_key_env":"A","secret_key_env":"B"}]}`, "unknown field"},
		{`{"tiers":[{"type":"s3"}]}`, "name"},
		{good[:len(good)-1] + `,"x":1}`, "unknown field"},
		{good + `{}`, "trailing"},
	}
	for _, b := range bad {
		if _, err := ParseTiers(strings.NewReader(b.doc)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: err %v, want one containing %q", b.doc, err, b.want)
		}
	}
}
