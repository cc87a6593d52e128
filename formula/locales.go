package formula

import (
	"strconv"
	"strings"
)

// localeNames is what DATETIME_FORMAT, DATETIME_PARSE and SET_LOCALE know of a locale: moment.js's
// month and weekday names, its long date formats (L, LL, ..., LT) and its ordinals.
type localeNames struct {
	months, shortMonths                  [12]string
	weekdays, shortWeekdays, minWeekdays [7]string
	// long holds the locale's LT LTS L LL LLL LLLL, and l ll lll llll where the locale defines
	// them; the others are derived from the upper-case ones, as moment does.
	long map[string]string
	// ordinal writes n as an ordinal for the token family period: "D", "M", "Q", "DDD", "d", "w" or
	// "W".
	ordinal func(n int, period string) string
}

// longFormat returns the expansion of a locale token, or false when tok is not one.
func (l *localeNames) longFormat(tok string) (string, bool) {
	if f, ok := l.long[tok]; ok {
		return f, true
	}
	switch tok {
	case "l", "ll", "lll", "llll":
		if upper, ok := l.long[strings.ToUpper(tok)]; ok {
			return shortenLongFormat(upper), true
		}
	}
	return "", false
}

// shortenLongFormat derives l from L (and ll from LL, ...) as moment does: MMMM, MM, DD and dddd
// lose a letter; bracketed text is kept.
func shortenLongFormat(f string) string {
	var b strings.Builder
	for i := 0; i < len(f); {
		if f[i] == '[' {
			if j := strings.IndexByte(f[i:], ']'); j > 0 {
				b.WriteString(f[i : i+j+1])
				i += j + 1
				continue
			}
		}
		matched := ""
		for _, tok := range formatTokens {
			if strings.HasPrefix(f[i:], tok) {
				matched = tok
				break
			}
		}
		switch matched {
		case "":
			b.WriteByte(f[i])
			i++
			continue
		case "MMMM", "MM", "DD", "dddd":
			b.WriteString(matched[1:])
		default:
			b.WriteString(matched)
		}
		i += len(matched)
	}
	return b.String()
}

// suffixOrdinal is an ordinal that appends the same suffix to every number: 15. or 15º.
func suffixOrdinal(suffix string) func(int, string) string {
	return func(n int, _ string) string { return strconv.Itoa(n) + suffix }
}

// The long date formats shared by several locales.
var (
	englishLong = map[string]string{
		"LT": "h:mm A", "LTS": "h:mm:ss A", "L": "MM/DD/YYYY", "LL": "MMMM D, YYYY",
		"LLL": "MMMM D, YYYY h:mm A", "LLLL": "dddd, MMMM D, YYYY h:mm A",
	}
	englishMonths        = [12]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	englishShortMonths   = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	englishWeekdays      = [7]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	englishShortWeekdays = [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	englishMinWeekdays   = [7]string{"Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"}
)

// locales holds moment.js's data for the locales this package knows, by lower-case tag. Others
// fall back to their language, then to English (see the package doc).
var locales = map[string]*localeNames{
	"en": {
		months: englishMonths, shortMonths: englishShortMonths,
		weekdays: englishWeekdays, shortWeekdays: englishShortWeekdays, minWeekdays: englishMinWeekdays,
		long: englishLong, ordinal: englishOrdinal,
	},
	"en-gb": {
		months: englishMonths, shortMonths: englishShortMonths,
		weekdays: englishWeekdays, shortWeekdays: englishShortWeekdays, minWeekdays: englishMinWeekdays,
		long: map[string]string{
			"LT": "HH:mm", "LTS": "HH:mm:ss", "L": "DD/MM/YYYY", "LL": "D MMMM YYYY",
			"LLL": "D MMMM YYYY HH:mm", "LLLL": "dddd, D MMMM YYYY HH:mm",
		},
		ordinal: englishOrdinal,
	},
	"fr": {
		months:        [12]string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
		shortMonths:   [12]string{"janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."},
		weekdays:      [7]string{"dimanche", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi"},
		shortWeekdays: [7]string{"dim.", "lun.", "mar.", "mer.", "jeu.", "ven.", "sam."},
		minWeekdays:   [7]string{"di", "lu", "ma", "me", "je", "ve", "sa"},
		long: map[string]string{
			"LT": "HH:mm", "LTS": "HH:mm:ss", "L": "DD/MM/YYYY", "LL": "D MMMM YYYY",
			"LLL": "D MMMM YYYY HH:mm", "LLLL": "dddd D MMMM YYYY HH:mm",
		},
		ordinal: func(n int, period string) string {
			s := strconv.Itoa(n)
			switch {
			case period == "D":
				if n == 1 {
					return s + "er"
				}
				return s
			case period == "w" || period == "W":
				if n == 1 {
					return s + "re"
				}
				return s + "e"
			case n == 1:
				return s + "er"
			}
			return s + "e"
		},
	},
	"de": {
		months:        [12]string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
		shortMonths:   [12]string{"Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sep.", "Okt.", "Nov.", "Dez."},
		weekdays:      [7]string{"Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"},
		shortWeekdays: [7]string{"So.", "Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa."},
		minWeekdays:   [7]string{"So", "Mo", "Di", "Mi", "Do", "Fr", "Sa"},
		long: map[string]string{
			"LT": "HH:mm", "LTS": "HH:mm:ss", "L": "DD.MM.YYYY", "LL": "D. MMMM YYYY",
			"LLL": "D. MMMM YYYY HH:mm", "LLLL": "dddd, D. MMMM YYYY HH:mm",
		},
		ordinal: suffixOrdinal("."),
	},
	"es": {
		months:        [12]string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
		shortMonths:   [12]string{"ene.", "feb.", "mar.", "abr.", "may.", "jun.", "jul.", "ago.", "sept.", "oct.", "nov.", "dic."},
		weekdays:      [7]string{"domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"},
		shortWeekdays: [7]string{"dom.", "lun.", "mar.", "mié.", "jue.", "vie.", "sáb."},
		minWeekdays:   [7]string{"do", "lu", "ma", "mi", "ju", "vi", "sá"},
		long: map[string]string{
			"LT": "H:mm", "LTS": "H:mm:ss", "L": "DD/MM/YYYY", "LL": "D [de] MMMM [de] YYYY",
			"LLL": "D [de] MMMM [de] YYYY H:mm", "LLLL": "dddd, D [de] MMMM [de] YYYY H:mm",
		},
		ordinal: suffixOrdinal("º"),
	},
	"it": {
		months:        [12]string{"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"},
		shortMonths:   [12]string{"gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"},
		weekdays:      [7]string{"domenica", "lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato"},
		shortWeekdays: [7]string{"dom", "lun", "mar", "mer", "gio", "ven", "sab"},
		minWeekdays:   [7]string{"do", "lu", "ma", "me", "gi", "ve", "sa"},
		long: map[string]string{
			"LT": "HH:mm", "LTS": "HH:mm:ss", "L": "DD/MM/YYYY", "LL": "D MMMM YYYY",
			"LLL": "D MMMM YYYY HH:mm", "LLLL": "dddd D MMMM YYYY HH:mm",
		},
		ordinal: suffixOrdinal("º"),
	},
	"pt": {
		months:        [12]string{"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"},
		shortMonths:   [12]string{"jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez"},
		weekdays:      [7]string{"Domingo", "Segunda-feira", "Terça-feira", "Quarta-feira", "Quinta-feira", "Sexta-feira", "Sábado"},
		shortWeekdays: [7]string{"Dom", "Seg", "Ter", "Qua", "Qui", "Sex", "Sáb"},
		minWeekdays:   [7]string{"Do", "2ª", "3ª", "4ª", "5ª", "6ª", "Sá"},
		long: map[string]string{
			"LT": "HH:mm", "LTS": "HH:mm:ss", "L": "DD/MM/YYYY", "LL": "D [de] MMMM [de] YYYY",
			"LLL": "D [de] MMMM [de] YYYY HH:mm", "LLLL": "dddd, D [de] MMMM [de] YYYY HH:mm",
		},
		ordinal: suffixOrdinal("º"),
	},
	"pt-br": {
		months:        [12]string{"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"},
		shortMonths:   [12]string{"jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez"},
		weekdays:      [7]string{"domingo", "segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado"},
		shortWeekdays: [7]string{"dom", "seg", "ter", "qua", "qui", "sex", "sáb"},
		minWeekdays:   [7]string{"do", "2ª", "3ª", "4ª", "5ª", "6ª", "sá"},
		long: map[string]string{
			"LT": "HH:mm", "LTS": "HH:mm:ss", "L": "DD/MM/YYYY", "LL": "D [de] MMMM [de] YYYY",
			"LLL": "D [de] MMMM [de] YYYY [às] HH:mm", "LLLL": "dddd, D [de] MMMM [de] YYYY [às] HH:mm",
		},
		ordinal: suffixOrdinal("º"),
	},
	"nl": {
		months:        [12]string{"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"},
		shortMonths:   [12]string{"jan.", "feb.", "mrt.", "apr.", "mei", "jun.", "jul.", "aug.", "sep.", "okt.", "nov.", "dec."},
		weekdays:      [7]string{"zondag", "maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag"},
		shortWeekdays: [7]string{"zo.", "ma.", "di.", "wo.", "do.", "vr.", "za."},
		minWeekdays:   [7]string{"zo", "ma", "di", "wo", "do", "vr", "za"},
		long: map[string]string{
			"LT": "HH:mm", "LTS": "HH:mm:ss", "L": "DD-MM-YYYY", "LL": "D MMMM YYYY",
			"LLL": "D MMMM YYYY HH:mm", "LLLL": "dddd D MMMM YYYY HH:mm",
		},
		ordinal: func(n int, _ string) string {
			if n == 1 || n == 8 || n >= 20 {
				return strconv.Itoa(n) + "ste"
			}
			return strconv.Itoa(n) + "de"
		},
	},
	"sv": {
		months:        [12]string{"januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti", "september", "oktober", "november", "december"},
		shortMonths:   [12]string{"jan", "feb", "mar", "apr", "maj", "jun", "jul", "aug", "sep", "okt", "nov", "dec"},
		weekdays:      [7]string{"söndag", "måndag", "tisdag", "onsdag", "torsdag", "fredag", "lördag"},
		shortWeekdays: [7]string{"sön", "mån", "tis", "ons", "tor", "fre", "lör"},
		minWeekdays:   [7]string{"sö", "må", "ti", "on", "to", "fr", "lö"},
		long: map[string]string{
			"LT": "HH:mm", "LTS": "HH:mm:ss", "L": "YYYY-MM-DD", "LL": "D MMMM YYYY",
			"LLL": "D MMMM YYYY [kl.] HH:mm", "LLLL": "dddd D MMMM YYYY [kl.] HH:mm",
			"lll": "D MMM YYYY HH:mm", "llll": "ddd D MMM YYYY HH:mm",
		},
		ordinal: func(n int, _ string) string {
			suffix := ":e"
			if (n%100)/10 != 1 && (n%10 == 1 || n%10 == 2) {
				suffix = ":a"
			}
			return strconv.Itoa(n) + suffix
		},
	},
	"da": {
		months:        [12]string{"januar", "februar", "marts", "april", "maj", "juni", "juli", "august", "september", "oktober", "november", "december"},
		shortMonths:   [12]string{"jan", "feb", "mar", "apr", "maj", "jun", "jul", "aug", "sep", "okt", "nov", "dec"},
		weekdays:      [7]string{"søndag", "mandag", "tirsdag", "onsdag", "torsdag", "fredag", "lørdag"},
		shortWeekdays: [7]string{"søn", "man", "tir", "ons", "tor", "fre", "lør"},
		minWeekdays:   [7]string{"sø", "ma", "ti", "on", "to", "fr", "lø"},
		long: map[string]string{
			"LT": "HH:mm", "LTS": "HH:mm:ss", "L": "DD.MM.YYYY", "LL": "D. MMMM YYYY",
			"LLL": "D. MMMM YYYY HH:mm", "LLLL": "dddd [d.] D. MMMM YYYY [kl.] HH:mm",
		},
		ordinal: suffixOrdinal("."),
	},
	"nb": {
		months:        [12]string{"januar", "februar", "mars", "april", "mai", "juni", "juli", "august", "september", "oktober", "november", "desember"},
		shortMonths:   [12]string{"jan.", "feb.", "mars", "apr.", "mai", "juni", "juli", "aug.", "sep.", "okt.", "nov.", "des."},
		weekdays:      [7]string{"søndag", "mandag", "tirsdag", "onsdag", "torsdag", "fredag", "lørdag"},
		shortWeekdays: [7]string{"sø.", "ma.", "ti.", "on.", "to.", "fr.", "lø."},
		minWeekdays:   [7]string{"sø", "ma", "ti", "on", "to", "fr", "lø"},
		long: map[string]string{
			"LT": "HH:mm", "LTS": "HH:mm:ss", "L": "DD.MM.YYYY", "LL": "D. MMMM YYYY",
			"LLL": "D. MMMM YYYY [kl.] HH:mm", "LLLL": "dddd D. MMMM YYYY [kl.] HH:mm",
		},
		ordinal: suffixOrdinal("."),
	},
}

// localeAliases maps a tag to the locale that serves it ("no", Norwegian, to Bokmål).
var localeAliases = map[string]string{"no": "nb"}

// lookupLocale returns the data of a locale such as "fr", "pt-BR" or "en_GB": the tag itself when
// known, else its language, else English; and whether it was found ("" counts as English).
func lookupLocale(tag string) (*localeNames, bool) {
	tag = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(tag)), "_", "-")
	if l, ok := locales[tag]; ok {
		return l, true
	}
	lang := tag
	if i := strings.IndexByte(lang, '-'); i >= 0 {
		lang = lang[:i]
	}
	if alias, ok := localeAliases[lang]; ok {
		lang = alias
	}
	if l, ok := locales[lang]; ok {
		return l, true
	}
	return locales["en"], tag == ""
}
