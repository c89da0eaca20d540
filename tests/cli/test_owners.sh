# SPDX-License-Identifier: LGPL-2.1-or-later
# test_owners: who owns what (issue 40) through rdtctl on the simulator - a
# group made by hand survives apply --prune of a configuration; --prune-all
# is the old "the state becomes the file"; what a container or the
# controller made is refused to a person, the state unchanged, until
# --force hands it over; show and -j name the owner.
. "$(dirname "$0")/lib.sh"

ok "a group made by hand" group create hand
cat >"$TMP/web.conf" <<'CONF'
group w1
	schema L3:0=f
group w2
CONF
ok "apply web.conf" apply "$TMP/web.conf"
ok "-j group show w1" -j group show w1
json "w1 is the configuration's (the file's base name)" "[d['owner'], d['mask_owner']]" \
	'["config:web", "config:web"]'
printf 'group w1\n\tschema L3:0=f\n' >"$TMP/web.conf"
ok "dry run of the prune" apply --prune --dry-run "$TMP/web.conf"
expect_out "the hand-made group is not the configuration's" \
	"keep group hand: not managed by this configuration (owner user:admin)
remove group w2
$TMP/web.conf is valid: applying it would make 1 change"
ok "apply --prune" apply --prune "$TMP/web.conf"
ok "groups after the prune" group list
expect_out "hand survives the prune, w2 went" "default
hand
w1"
ok "another configuration, named in the file" apply --prune - <<'CONF'
name other
group o1
CONF
ok "groups after the other's prune" group list
expect_out "the other configuration removes nothing of web's" "default
hand
w1
o1"

# what a container made: refused to a person, unchanged, until --force
ok "the hook's group (as a container would)" --owner oci:c1 group create ctr
ok "its task" --owner oci:c1 task bind ctr 77
snapshot "$TMP/before"
fails 1 "a person's removal is refused" \
	"group ctr: it is container c1's; --force takes it back" group remove ctr
fails 1 "the task's binding too" \
	"task 77: its binding is container c1's; --force takes it back" task bind default 77
unchanged "nothing changed by the refusals" "$TMP/before"
ok "the controller's mask (forced over the person's)" --owner control:0 --force \
	schema set hand "L3:0=ff"
fails 1 "a person's schema change of the controller's mask" \
	"group hand: its mask is the controller's (domain 0); --force takes it back" \
	schema set hand "L3:0=f0"
ok "group show hand" group show hand
expect_out_has "the mask's owner shown" "  owner:   user:admin (mask: L3:0=control:0;1=user:admin)"
ok "--force takes it back" --force schema set hand "L3:0=f0"
ok "-j group show hand" -j group show hand
json "the mask is the person's again" "d['mask_owner']" "user:admin"
ok "--force removes the container's group" --force group remove ctr
fails 1 "a bad owner, refused by the library" "rdtalloc_opts.owner: owner 'user:a b' has a space or a character that is not printable ASCII at byte 6" \
	--owner "a b" group list
# --prune-all: the state becomes the file, whoever made what
ok "apply --prune-all" apply --prune-all "$TMP/web.conf"
ok "groups after --prune-all" group list
expect_out "only the file's group" "default
w1"
finish
