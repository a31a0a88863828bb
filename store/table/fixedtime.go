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
	y, ok1 := fixedDigits(s[0:4])
	mo, ok2 := fixedDigits(s[5:7])
	d, ok3 := fixedDigits(s[8:10])
	h, ok4 := fixedDigits(s[11:13])
	mi, ok5 := fixedDigits(s[14:16])
	sec, ok6 := fixedDigits(s[17:19])
	nanos, ok7 := fixedDigits(s[20:29])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) ||
		mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y) || h > 23 || mi > 59 || sec > 59 {
		return 0, 0, false
	}
	return daysSinceEpoch(y, mo, d)*86400 + h*3600 + mi*60 + sec, nanos, true
}

// fixedDigits returns the number s spells in decimal digits only.
func fixedDigits(s string) (int64, bool) {
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		n = n*10 + int64(c)
	}
	return n, true
}

// daysIn returns the days of month mo (1–12) of year y, proleptic
// Gregorian.
func daysIn(mo, y int64) int64 {
	switch mo {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysSinceEpoch returns the days from 1970-01-01 to y-mo-d (a valid date
// of year 0–9999), by the civil-from-days algorithm read backwards
// (Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms"): the
// year counted from March, so that the leap day ends it, in eras of 400
// years.
func daysSinceEpoch(y, mo, d int64) int64 {
	if mo <= 2 {
		y--
	}
	era := y / 400
	if y < 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400                     // [0, 399]
	doy := (153*((mo+9)%12)+2)/5 + d - 1   // [0, 365], from March 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy // [0, 146096]
	return era*146097 + doe - 719468       // 719468: 0000-03-01 to 1970-01-01
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
