package render

import "testing"

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"},
		{10 << 20, "10.0 MiB"}, {3 << 30, "3.0 GiB"}, {5 << 40, "5.0 TiB"}, {7 << 50, "7.0 PiB"}, {1 << 62, "4096.0 PiB"},
	} {
		if got := Bytes(tc.n); got != tc.want {
			t.Errorf("Bytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
