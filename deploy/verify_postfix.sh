#!/bin/sh
# Verify the Postfix path for real: mail in through Postfix, handed to
# `pbmserv serve --lmtp` by a transport map, replies back out through Postfix
# into the players' Maildirs.
#
#   sudo deploy/verify_postfix.sh            # installs postfix + swaks if missing
#   KEEP=1 sudo deploy/verify_postfix.sh     # keep the work directory for a look
#
# Everything runs on loopback in a private Postfix instance (its own
# config_directory, queue and log under a temporary directory, smtpd on
# 127.0.0.1:$SMTP_PORT); no system Postfix is started.  The one change to
# /etc/postfix/main.cf is alternate_config_directories naming the private
# instance while the check runs (restored on exit): Postfix starts a second
# instance only from a directory listed there.  Exit 0 = verified; 77 = cannot
# run here (not root, no postfix and no apt-get); anything else = failure.
#
# What it checks, with the same configuration deploy/README.md tells an
# admin to use (deploy/postfix/):
#   1. swaks -> Postfix smtpd (127.0.0.1:2525) -> transport_maps
#      "games.pbm.test lmtp:inet:127.0.0.1:$LMTP_PORT" -> pbmserv serve --lmtp
#   2. pbmserv -> --relay 127.0.0.1:2525 (Postfix, loopback in mynetworks)
#      -> virtual(8) delivery into $WORK/mail/<player>/new/
#   with signup alice, signup bob, interweave challenge alice bob, a move;
#   3. bob's Reply to his board mail, to its Reply-To pbmserv+TOKEN@...
#      (recipient_delimiter = +), with only his move typed: played.
set -eu

SMTP_PORT=${SMTP_PORT:-2525}
LMTP_PORT=${LMTP_PORT:-8024}
GAMES_DOMAIN=games.pbm.test
PLAYERS_DOMAIN=players.pbm.test
PBMSERV=${PBMSERV:-pbmserv}
REPO=$(cd "$(dirname "$0")/.." && pwd)

say() { printf '== %s\n' "$*"; }
die() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (a private Postfix instance runs as root, delivers as nobody)" >&2
    exit 77
fi
if ! command -v postfix >/dev/null || ! command -v swaks >/dev/null; then
    if ! command -v apt-get >/dev/null; then
        echo "SKIP: postfix or swaks missing and no apt-get to install them" >&2
        exit 77
    fi
    say "installing postfix and swaks from the distribution"
    echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
    DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q postfix swaks >/dev/null
fi
command -v "$PBMSERV" >/dev/null || PBMSERV="python3 -c 'from server.cli import main; main()'"

WORK=$(mktemp -d /tmp/pbmserv-postfix.XXXXXX)
chmod 755 "$WORK"
CONF=$WORK/etc
mkdir -p "$CONF" "$WORK/spool" "$WORK/data" "$WORK/mail"
PBM_PID=
MAIN_CREATED=
ALT_BEFORE=
ALT_SET=
# Runs on every exit (success, failure, Ctrl-C): never stops half-way, so the
# work directory and the change to /etc/postfix/main.cf never stay behind.
cleanup() {
    set +e
    postfix -c "$CONF" stop >/dev/null 2>&1
    if [ -n "$MAIN_CREATED" ]; then rm -f /etc/postfix/main.cf
    elif [ -n "$ALT_SET" ]; then postconf -e "alternate_config_directories = $ALT_BEFORE"
    else postconf -X alternate_config_directories 2>/dev/null; fi
    if [ -n "$PBM_PID" ]; then kill "$PBM_PID" 2>/dev/null; wait "$PBM_PID" 2>/dev/null; fi
    if [ "${KEEP:-}" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# A fresh install with debconf's "No configuration" has no main.cf at all;
# postconf needs one.  An empty one (all defaults) is made for the check and
# removed afterwards.
if [ ! -e /etc/postfix/main.cf ]; then
    : >/etc/postfix/main.cf
    MAIN_CREATED=1
fi
# Postfix runs a second instance only from a config directory the default
# main.cf lists; add ours for the duration of the check, restore after.
ALT_BEFORE=$(postconf -h alternate_config_directories 2>/dev/null || true)
ALT_SET=$(postconf -n alternate_config_directories 2>/dev/null || true)

NOBODY_UID=$(id -u nobody)
NOBODY_GID=$(id -g nobody)
chown "$NOBODY_UID:$NOBODY_GID" "$WORK/mail"
chown postfix "$WORK/data"

say "private Postfix instance in $CONF (smtpd on 127.0.0.1:$SMTP_PORT)"
# main.cf: the lines of deploy/postfix/main.cf, plus what a private instance on
# loopback needs (own directories, log file, virtual mailboxes for the players).
cat >"$CONF/main.cf" <<EOF
compatibility_level = 3.6
queue_directory = $WORK/spool
data_directory = $WORK/data
mail_owner = postfix
setgid_group = postdrop
maillog_file = $WORK/maillog
maillog_file_prefixes = $WORK
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = mx.pbm.test
mydomain = pbm.test
mydestination =
mynetworks = 127.0.0.0/8
smtpd_recipient_restrictions = permit_mynetworks, reject_unauth_destination
smtp_dns_support_level = disabled
disable_dns_lookups = yes
# --- pbmserv (as in deploy/postfix/main.cf) ---
relay_domains = $GAMES_DOMAIN
transport_maps = texthash:$CONF/transport
lmtp_destination_recipient_limit = 1
relay_recipient_maps = texthash:$CONF/relay_recipients
recipient_delimiter = +
# --- the players' mailboxes, only for this check ---
virtual_mailbox_domains = $PLAYERS_DOMAIN
virtual_mailbox_base = $WORK/mail
virtual_mailbox_maps = texthash:$CONF/vmailbox
virtual_uid_maps = static:$NOBODY_UID
virtual_gid_maps = static:$NOBODY_GID
EOF
# deploy/postfix/transport with the test domain and port:
sed -e "s/games\.example\.org/$GAMES_DOMAIN/" -e "s/127\.0\.0\.1:8024/127.0.0.1:$LMTP_PORT/" \
    "$REPO/deploy/postfix/transport" >"$CONF/transport"
printf 'alice@%s alice/\nbob@%s bob/\n' "$PLAYERS_DOMAIN" "$PLAYERS_DOMAIN" >"$CONF/vmailbox"
# deploy/postfix/relay_recipients with the test domain:
sed -e "s/games\.example\.org/$GAMES_DOMAIN/" "$REPO/deploy/postfix/relay_recipients" >"$CONF/relay_recipients"
# master.cf: the distribution's, without chroot (our queue is not a chroot
# jail), smtpd moved to the loopback port, postlog for maillog_file.
awk -v port="$SMTP_PORT" '
    /^smtp[ \t]+inet/ { print "127.0.0.1:" port " inet n - n - - smtpd"; next }
    /^[a-z]/ && NF >= 8 && $5 == "y" { $5 = "n" }
    { print }' /etc/postfix/master.cf >"$CONF/master.cf"
grep -q '^postlog' "$CONF/master.cf" || echo 'postlog unix-dgram n - n - 1 postlogd' >>"$CONF/master.cf"
echo "$CONF/transport:"; sed 's/^/    /' "$CONF/transport" | grep -v '^    #'

postconf -e "alternate_config_directories = ${ALT_BEFORE:+$ALT_BEFORE }$CONF"
# (postfix reports to syslog unless it has a terminal: give it one)
script -qc "postfix -c $CONF check" /dev/null | tee "$WORK/check.log"
grep -q "fatal" "$WORK/check.log" && die "postfix check (above)"
postfix -c "$CONF" start >/dev/null || die "postfix start (see $WORK/maillog)"

say "pbmserv serve --lmtp on 127.0.0.1:$LMTP_PORT, relay 127.0.0.1:$SMTP_PORT (Postfix)"
cd "$WORK"
sh -c "exec $PBMSERV --database-url sqlite:///$WORK/pbmserv.db --address pbmserv@$GAMES_DOMAIN \
    --relay 127.0.0.1:$SMTP_PORT --listen 127.0.0.1:$LMTP_PORT serve --lmtp" >"$WORK/pbmserv.log" 2>&1 &
PBM_PID=$!
i=0
until grep -q "listening" "$WORK/pbmserv.log" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 100 ] || { cat "$WORK/pbmserv.log"; die "pbmserv did not start"; }
    sleep 0.2
done

send() {  # FROM SUBJECT
    swaks --silent 2 --server 127.0.0.1 --port "$SMTP_PORT" --helo client.pbm.test \
        --from "$1@$PLAYERS_DOMAIN" --to "pbmserv@$GAMES_DOMAIN" \
        --header "Subject: $2" --body "sent by verify_postfix.sh" >/dev/null || die "Postfix refused: $2"
}
# wait_mail USER COUNT: until USER's Maildir holds COUNT messages
wait_mail() {
    i=0
    while [ "$(ls "$WORK/mail/$1/new" 2>/dev/null | wc -l)" -lt "$2" ]; do
        i=$((i + 1))
        if [ $i -ge 150 ]; then
            echo "--- maillog"; cat "$WORK/maillog" || true; echo "--- pbmserv log"; cat "$WORK/pbmserv.log"
            die "$1 did not get mail #$2 within 30 s"
        fi
        sleep 0.2
    done
}
subject_of_last() { grep -h '^Subject:' $(ls -t "$WORK/mail/$1/new/"* | head -1) | head -1; }

say "swaks: signup alice, signup bob (through Postfix)"
send alice "signup alice apple1"
wait_mail alice 1
echo "    alice got: $(subject_of_last alice)"
send bob "signup bob banana2"
wait_mail bob 1
echo "    bob got:   $(subject_of_last bob)"

say "swaks: interweave challenge alice bob"
send alice "interweave challenge alice bob"
wait_mail alice 2
wait_mail bob 2
echo "    alice got: $(subject_of_last alice)"
echo "    bob got:   $(subject_of_last bob)"
subject_of_last bob | grep -q "Board 101" || die "no board mail for bob"

MOVE=$(python3 -c "import games; g = games.load_game('interweave'); s = g.start(g.parse_options([]), 2); print(g.legal_moves(s)[0])")
say "swaks: interweave move 101 alice ******** $MOVE#1"
send alice "interweave move 101 alice apple1 $MOVE#1"
wait_mail bob 3
echo "    bob got:   $(subject_of_last bob)"
subject_of_last bob | grep -q "bob" || die "bob's board mail does not say it is his move"

say "swaks: an unknown address of the game domain is refused at RCPT (no backscatter)"
if swaks --silent 2 --server 127.0.0.1 --port "$SMTP_PORT" --helo client.pbm.test --from "forged@$PLAYERS_DOMAIN" \
        --to "nobody@$GAMES_DOMAIN" --body x >"$WORK/unknown.log" 2>&1; then
    die "Postfix accepted mail for nobody@$GAMES_DOMAIN (relay_recipient_maps missing?)"
fi
grep -q "550" "$WORK/unknown.log" || { cat "$WORK/unknown.log"; die "no 550 for an unknown address"; }
echo "    $(grep -o '550.*' "$WORK/unknown.log" | head -1)"

# Reply to play: bob hits Reply on that board mail and types only his move.
# The reply goes to the mail's Reply-To (pbmserv+TOKEN@games...), through
# Postfix's recipient_delimiter and transport map, to pbmserv over LMTP.
BOB_MAIL=$(ls -t "$WORK/mail/bob/new/"* | head -1)
REPLY_TO=$(python3 -c "import email,sys; print(email.message_from_binary_file(open(sys.argv[1],'rb'))['Reply-To'] or '')" "$BOB_MAIL")
case "$REPLY_TO" in
    pbmserv+*@$GAMES_DOMAIN) ;;
    *) die "bob's board mail has no reply address (Reply-To: '$REPLY_TO')" ;;
esac
TOKEN=${REPLY_TO#pbmserv+}; TOKEN=${TOKEN%@*}
MOVE2=$(python3 -c "import games, sys; g = games.load_game('interweave'); s = g.start(g.parse_options([]), 2)
s = g.play(s, 0, sys.argv[1]); print(g.legal_moves(s)[0])" "$MOVE")
MSGID=$(python3 -c "import email,sys; print(email.message_from_binary_file(open(sys.argv[1],'rb'))['Message-ID'])" "$BOB_MAIL")
say "bob replies to his board mail (To: pbmserv+***@$GAMES_DOMAIN) with just: $MOVE2"
{ printf '%s\n\nOn a day like this, pbmserv wrote:\n' "$MOVE2"; sed 's/^/> /' "$BOB_MAIL"; } >"$WORK/reply.txt"
swaks --silent 2 --server 127.0.0.1 --port "$SMTP_PORT" --helo client.pbm.test \
    --from "bob@$PLAYERS_DOMAIN" --to "$REPLY_TO" --header "Subject: Re: $(subject_of_last bob | sed 's/^Subject: //')" \
    --header "In-Reply-To: $MSGID" --body "@$WORK/reply.txt" >/dev/null || die "Postfix refused bob's reply"
wait_mail alice 4
echo "    alice got: $(subject_of_last alice)"
grep -q "bob played $MOVE2" $(ls -t "$WORK/mail/alice/new/"* | head -1) || die "bob's reply was not played"
grep -q "status=sent (250 2.0.0 Message accepted)" "$WORK/maillog" || die "no LMTP delivery in the log"

say "the way the reply went (Postfix log, reply tokens masked):"
grep -E "status=sent" "$WORK/maillog" | sed -E 's/^.*postfix[^ ]*: //; s/\+[a-z2-7]{20,}@/+***@/g; s/^/    /' | tail -10
grep -q "relay=127.0.0.1\[127.0.0.1\]:$LMTP_PORT.*status=sent" "$WORK/maillog" || die "no LMTP hand-off to pbmserv in the log"
grep -q "relay=virtual.*status=sent" "$WORK/maillog" || die "no reply delivered by Postfix in the log"
say "pbmserv log (one line per command):"
grep "command from=" "$WORK/pbmserv.log" | sed 's/^/    /'
if grep -q "apple1\|banana2" "$WORK/pbmserv.log"; then die "a password appears in the pbmserv log"; fi
if grep -qi "$TOKEN" "$WORK/pbmserv.log"; then die "a reply token appears in the pbmserv log"; fi
grep -qi "pbmserv+$TOKEN@$GAMES_DOMAIN.*status=sent" "$WORK/maillog" || die "the reply address did not reach pbmserv"
echo "OK: Postfix -> LMTP -> pbmserv -> Postfix -> mailbox verified, and a move by reply (pbmserv+TOKEN)"
