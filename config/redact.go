package config

import (
	"net/url"
	"reflect"
	"strings"
)

// Redacted returns a deep copy of c in which every secret that is set reads
// "***": API keys, tokens, the signing secret, MCP environment values and
// headers, and passwords inside URLs. Fields tagged redact:"secret" or
// redact:"url" are the secrets; a test keeps new ones from going untagged.
// Use it before logging or printing a configuration.
func (c Config) Redacted() Config {
	out := deepCopy(reflect.ValueOf(c)).Interface().(Config)
	redact(reflect.ValueOf(&out).Elem())
	return out
}

const mask = "***"

// redact masks the secret fields of the settable value v in place.
func redact(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f, tag := v.Field(i), v.Type().Field(i).Tag.Get("redact")
			switch {
			case tag == "secret" && f.Kind() == reflect.String:
				if f.String() != "" {
					f.SetString(mask)
				}
			case tag == "secret" && f.Kind() == reflect.Map:
				for _, k := range f.MapKeys() {
					f.SetMapIndex(k, reflect.ValueOf(mask))
				}
			case tag == "url":
				f.SetString(redactURL(f.String()))
			default:
				redact(f)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			redact(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			redact(e)
			v.SetMapIndex(k, e)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			redact(v.Elem())
		}
	}
}

// redactURL masks the user information (password, or a bare token) in a
// URL, even one that does not parse.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		at := strings.LastIndex(s, "@")
		if at < 0 {
			return s
		}
		start := strings.Index(s, "://") + len("://")
		if start < len("://") || start > at {
			start = 0
		}
		return s[:start] + mask + s[at:]
	}
	if u.User == nil {
		return s
	}
	// A placeholder of unreserved characters, because url escapes "*".
	const placeholder = "REDACTED"
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), placeholder)
	} else {
		u.User = url.User(placeholder) // a bare user info is usually a token
	}
	return strings.Replace(u.String(), placeholder+"@", mask+"@", 1)
}

// deepCopy copies v so that the copy shares no slices, maps or pointers
// with it. It handles the kinds Config is made of.
func deepCopy(v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			out.Field(i).Set(deepCopy(v.Field(i)))
		}
	case reflect.Slice:
		if v.IsNil() {
			return out
		}
		out.Set(reflect.MakeSlice(v.Type(), v.Len(), v.Len()))
		for i := range v.Len() {
			out.Index(i).Set(deepCopy(v.Index(i)))
		}
	case reflect.Map:
		if v.IsNil() {
			return out
		}
		out.Set(reflect.MakeMapWithSize(v.Type(), v.Len()))
		for _, k := range v.MapKeys() {
			out.SetMapIndex(k, deepCopy(v.MapIndex(k)))
		}
	case reflect.Pointer:
		if v.IsNil() {
			return out
		}
		out.Set(reflect.New(v.Type().Elem()))
		out.Elem().Set(deepCopy(v.Elem()))
	default:
		out.Set(v)
	}
	return out
}
