package table

import "time"

// The table's times, parsed and written by hand: package time's general
// layouts cost more than a page's reads of them (a comment's createdAt is
// parsed once per comment a page returns, and written into every sort key
// the embedded store derives).

// TimeLayout is the form of every time the table holds (a comment's
// createdAt, the time that begins its GSISK): UTC, always nine fractional
// digits, so that byte order is time order.
const TimeLayout = "2006-01-02T15:04:05.000000000Z"

// ParseFixedTime returns the seconds and nanoseconds since 1970 of s when s
// is a time in exactly the form TimeLayout writes.
func ParseFixedTime(s string) (int64, int64, bool) {
	if len(s) != len(TimeLayout) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
		s[16] != ':' || s[19] != '.' || s[29] != 'Z' {
		return 0, 0, false
	}
	num := func(i, j int) (int, bool) {
		n := 0
		for ; i < j; i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			n = n*10 + int(s[i]-'0')
		}
		return n, true
	}
	var f [7]int
	for k, r := range [7][2]int{{0, 4}, {5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}, {20, 29}} {
		n, ok := num(r[0], r[1])
		if !ok {
			return 0, 0, false
		}
		f[k] = n
	}
	t := time.Date(f[0], time.Month(f[1]), f[2], f[3], f[4], f[5], f[6], time.UTC)
	// time.Date normalises out-of-range fields: only a valid time survives.
	if t.Year() != f[0] || int(t.Month()) != f[1] || t.Day() != f[2] || t.Hour() != f[3] || t.Minute() != f[4] || t.Second() != f[5] {
		return 0, 0, false
	}
	return t.Unix(), int64(f[6]), true
}

// FormatFixedTime formats a time given as seconds and nanoseconds since
// 1970 in the form TimeLayout.
func FormatFixedTime(secs, nanos int64) string {
	var b [48]byte
	return string(AppendFixedTime(b[:0], secs, nanos))
}

// AppendFixedTime appends FormatFixedTime(secs, nanos) to b.
func AppendFixedTime(b []byte, secs, nanos int64) []byte {
	t := time.Unix(secs, nanos).UTC()
	y, mo, d := t.Date()
	h, mi, sec := t.Clock()
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, TimeLayout)
	}
	at := len(b)
	b = append(b, TimeLayout...)
	digits := func(from, width, n int) {
		for i := at + from + width - 1; i >= at+from; i-- {
			b[i] = byte('0' + n%10)
			n /= 10
		}
	}
	digits(0, 4, y)
	digits(5, 2, int(mo))
	digits(8, 2, d)
	digits(11, 2, h)
	digits(14, 2, mi)
	digits(17, 2, sec)
	digits(20, 9, int(nanos))
	return b
}
