package shell

import "testing"

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"git push *", "git push origin main", true},
		{"git push *", "git push", true},
		{"git push *", "git pushy", false},
		{"git push *", "git pull", false},
		{"rm -rf /*", "rm -rf /", true},
		{"rm -rf /*", "rm -rf /var", true},
		{"rm -rf /*", "rm -rf ./build", false},
		{"*", "", true},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"*.env", "cat .env", true},
		{"echo *", "echo a\nb", true},
		{"ls", "ls -l", false},
		{"gi[t] *", "gi[t] x", true},
		{"日本*", "日本語", true},
	}
	for _, tc := range tests {
		if got := Match(tc.pattern, tc.s); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

func TestDenied(t *testing.T) {
	deny := []string{"git push *", "rm -rf /*", "curl *", "shutdown", "sudo *"}
	tests := []struct {
		command string
		want    string // "" for allowed
	}{
		{"git push", "git push *"},
		{"  git push origin  ", "git push *"},
		{"git status; git push", "git push *"},
		{"make && git push", "git push *"},
		{"false || git push", "git push *"},
		{"echo x | git push", "git push *"},
		{"sleep 1 & git push", "git push *"},
		{"echo a\ngit push", "git push *"},
		{"(cd repo && git push)", "git push *"},
		{"{ git push; }", "git push *"},
		{"if true; then git push; fi", "git push *"},
		{"for i in 1; do git push; done", "git push *"},
		{"! git push", "git push *"},
		{"X=1 Y=2 git push", "git push *"},
		{"sudo -E git push", "git push *"},
		{"apt update && sudo apt install x", "sudo *"},
		{"env -i HOME=/ git push", "git push *"},
		{"nohup git push", "git push *"},
		{"/usr/bin/git push", "git push *"},
		{`\git push`, "git push *"},
		{`"git" "push"`, "git push *"},
		{"git\tpush", "git push *"},
		{"echo $(git push)", "git push *"},
		{"echo \"$(git push)\"", "git push *"},
		{"echo `git push`", "git push *"},
		{"diff <(curl a) b", "curl *"},
		{`bash -c 'git push'`, "git push *"},
		{`sh -lc "cd x && git push"`, "git push *"},
		{`eval "git push"`, "git push *"},
		{"rm -rf /", "rm -rf /*"},
		{"rm -rf /*", "rm -rf /*"},
		{"shutdown", "shutdown"},
		{"curl -s x 2>&1 | head", "curl *"},

		{"git status", ""},
		{"echo 'git push'", ""},
		{"echo git push", ""},
		{"grep -r 'curl' .", ""},
		{"make 2>&1 | tee log", ""},
		{"rm -rf ./build", ""},
		{"shutdown -h now", ""}, // "shutdown" has no trailing " *"
		{"ls > out &", ""},
	}
	for _, tc := range tests {
		got, ok := Denied(deny, tc.command)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Denied(%q) = %q, %v; want %q", tc.command, got, ok, tc.want)
		}
	}
	if p, ok := Denied(nil, "git push"); ok {
		t.Errorf("Denied with no patterns = %q", p)
	}
	if p, ok := Denied([]string{"", "  "}, "git push"); ok {
		t.Errorf("Denied with blank patterns = %q", p)
	}
}

func TestDeniedDeepNesting(t *testing.T) {
	// Deep nesting must neither recurse without bound nor take long.
	cmd := ""
	for i := 0; i < 10000; i++ {
		cmd += "$("
	}
	if _, ok := Denied([]string{"git push *"}, cmd+"echo"); ok {
		t.Errorf("denied a command without git push")
	}
}
