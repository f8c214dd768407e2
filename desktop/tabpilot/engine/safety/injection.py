"""Prompt-injection scoring of what a page holds (pure: no browser, no I/O).

The page (content/checks.js, `page.injection_scan`) hands over segments: each a piece of text with
where it was found — visible text, hidden text (and how it was hidden), an HTML comment, a meta tag,
a data-* or alt/title/aria attribute, noscript — and whether it sat in <code>/<pre>. Here each
segment gets a score from 0 to 1 and the page gets one too, with a verdict.

How a segment scores:
- patterns written from what injections look like in the wild (instruction overrides, role
  reassignment, chat-template role tags, words addressed to an AI reader, asks to exfiltrate secrets
  or call tools, asks to keep something from the user), each with a weight; several patterns
  combine as independent evidence (1 - Π(1 - w));
- where the text is changes it: text a person cannot see (or a comment, meta or data attribute,
  which no reader of the page sees) that speaks to an AI is far more suspicious than the same words
  on the page, so patterns found there are boosted;
- a mention is not an attack: visible words inside quotes or <code>, in a text that talks *about*
  prompt injection (an article, a tutorial, docs) are discounted, since that is how benign pages
  quote the phrases. The discount does not apply to hidden text: nobody quotes an example where no
  one can read it.

These are heuristics: a determined attacker can word an injection that scores low, and the result
says so. The score is evidence for the agent (and the person), not a guarantee.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Verdict = Literal["clean", "suspicious", "likely_injection"]
SUSPICIOUS_AT = 0.5
LIKELY_AT = 0.75
REPORTED_AT = 0.25
"""A segment scoring below this is not listed among the findings."""
MAX_FINDINGS = 20
EXCERPT_CHARS = 160

HIDDEN_LOCATIONS = frozenset({"hidden_text"})
READABLE_HIDING = frozenset({"collapsed"})
"""Hidden until a person opens it (a closed <details>): written to be read, scored as visible text."""
UNSEEN_LOCATIONS = frozenset({"comment", "meta", "data_attribute", "noscript", "structured_data"})
"""Places a person reading the page never sees, though an agent reading the source does."""
ATTRIBUTE_LOCATIONS = frozenset({"attribute"})
"""alt, title, aria-label...: read by screen readers and agents, seen by a person only sometimes."""

Kind = Literal["override", "role", "role_tag", "address", "exfiltration", "tool", "secrecy", "leak", "weak"]
"""What a pattern is evidence of; `weak` markers only add to stronger evidence, never count alone."""


@dataclass(frozen=True)
class Pattern:
    reason: str
    kind: Kind
    weight: float
    regex: re.Pattern[str]


def _p(reason: str, kind: Kind, weight: float, pattern: str) -> Pattern:
    return Pattern(reason, kind, weight, re.compile(pattern, re.IGNORECASE | re.MULTILINE))


_ANY = r"[^.!?\n]{0,40}?"
"""Up to a few words, not past the end of a sentence."""
_INSTRUCTIONS = (
    r"(instructions?|prompts?|rules|directions|directives|guidelines|guidance|context|messages|programming|"
    r"orders|constraints|commands)"
)
_AI = (
    r"(AI|A\.I\.|LLMs?|language models?|assistants?|agents?|chat ?bots?|bots?|models?|GPT|ChatGPT|Claude|Gemini|"
    r"Copilot|crawlers?)"
)
_ORDER = (
    r"(?:^|(?<=[.!?:;,\"“(\[>\-—])\s*|\b(?:please|now|and|then|just|simply|must|should|to|you|immediately|also)\s+)"
)
"""Where a verb gives an order: at the start of a clause, or after `please`, `you must`... (so "it will
forget previous messages" or "we may share cookie data" are statements, not orders)."""
_PEOPLE = r"(user|human|person|customer|reader|visitor|owner|operator)"
_ASKED = rf"({_INSTRUCTIONS}|request|question|query|task|wishes)"
_SECRETS = (
    r"(cookies?|tokens?|passwords?|passphrases?|credentials?|api[ _-]?keys?|session( id| data)?|secrets?|"
    r"credit ?card( numbers?)?|card numbers?|ssn|social security|private keys?|auth(entication|orization)?( headers?)?|"
    r"(chat|conversation) history|(the )?conversation|personal (data|information)|"
    r"email (addresses|contents|inbox)|contacts( list)?|clipboard|account numbers?|bank (details|account)|iban|"
    r"card details|cvv|pin( code)?|"
    r"local ?storage|otp|2fa codes?|one[- ]time codes?)"
)

PATTERNS: tuple[Pattern, ...] = (
    # Overriding what the reader was told before.
    _p(
        "asks to ignore previous instructions",
        "override",
        0.75,
        rf"{_ORDER}(ignore|disregard|forget|override|overrule|bypass|drop|abandon|discard|skip)\b{_ANY}\b(all |"
        rf"any |the |your |my )?"
        rf"(previous|prior|preceding|above|earlier|foregoing|original|initial|existing|old|system|"
        rf"other)\b{_ANY}\b{_INSTRUCTIONS}\b",
    ),
    _p(
        "asks to disregard what came before",
        "override",
        0.65,
        rf"{_ORDER}(ignore|disregard|forget) (everything|all|anything)"
        r"( (you('ve| have)? (been told|read|learned)|else))?( (above|before|so far|up to (here|now|this point)))\b",
    ),
    _p(
        "asks to ignore the user's request",
        "override",
        0.7,
        rf"{_ORDER}(ignore|disregard|forget|override|bypass|set aside)\b (the |your |this )?({_PEOPLE}'?s?|"
        rf"original|actual) {_ASKED}\b",
    ),
    _p(
        "declares earlier instructions void",
        "override",
        0.6,
        rf"\b(previous|prior|earlier|original|old|above|initial|{_PEOPLE}'?s?)( \w+)? {_ASKED} (is |are |has been |"
        r"have been |were |was )?(now )?(revoked|void|cancell?ed|obsolete|outdated|superseded|replaced|invalid|"
        r"no longer (valid|appl(y|ies)|in effect|relevant))\b",
    ),
    _p(
        "claims an override",
        "override",
        0.35,
        r"\b(system|admin|administrator|security|priority|emergency|developer) override\b",
    ),
    _p(
        "says the reader has new instructions",
        "override",
        0.55,
        rf"\byou (have|'ve got|now have) (new|updated|different|additional|revised) {_INSTRUCTIONS}\b"
        r"|\bnew (rule|policy|directive)s?\b[^.:\n]{0,40}:",
    ),
    _p(
        "recasts the page as instructions",
        "role_tag",
        0.55,
        r"\btreat (this|the following|these) (paragraph|text|message|page|content|note|line)s? as (the |a |an |your )?"
        r"(system|new|real|actual|trusted|priority|developer)\b",
    ),
    _p(
        "grants the reader permissions",
        "role",
        0.35,
        r"\byou (are|have been) (now )?(allowed|permitted|authori[sz]ed|cleared|free) to\b"
        r"|\byou have (full )?permission to\b",
    ),
    _p(
        "declares new instructions",
        "override",
        0.55,
        r"\b(new|updated|real|actual|revised|true|secret|hidden) (system )?(instructions?|directives?|"
        r"orders|task|objective|goal)s?\s*[:\-—]",
    ),
    _p(
        "claims the instructions changed",
        "override",
        0.5,
        rf"\b(your|the) {_INSTRUCTIONS} (have|has) (been )?(changed|updated|replaced|revoked|overridden|superseded)\b",
    ),
    _p(
        "claims priority over the user or system",
        "override",
        0.5,
        r"\b(these|this|the following) (instructions?|message|directives?) (take|takes|have|"
        r"has) (priority|precedence)\b"
        r"|\b(highest|top) priority (instruction|directive|override)\b",
    ),
    # Telling the reader who it is now.
    _p(
        "reassigns the reader's role",
        "role",
        0.45,
        r"\byou are now\b(?!\s+(logged|signed|subscribed|registered|ready|leaving|viewing|reading|on|in|at|"
        r"able|connected|using|browsing|watching|listening))",
    ),
    _p("reassigns the reader's role", "role", 0.4, r"\bfrom now on,? (you|your)\b|\bhenceforth,? you\b"),
    _p(
        "reassigns the reader's role",
        "role",
        0.35,
        r"\b(pretend|act|behave|respond) (to be|you are|as if you (are|were)|as) (an? )?(unrestricted|"
        r"unfiltered|jailbroken|different|new|evil|DAN\b)",
    ),
    _p(
        "enters a special mode",
        "role",
        0.4,
        r"\b(developer|god|debug|admin|jailbreak|unrestricted|DAN) mode\b( (enabled|activated|on))?",
    ),
    # Chat-template role markers: only meaningful to a language model.
    _p(
        "chat-template role tag",
        "role_tag",
        0.55,
        r"<\|(im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id)\|>|\[/?INST\]|"
        r"<</?SYS>>|</?(system|sys)>",
    ),
    _p(
        "chat-style role header",
        "role_tag",
        0.4,
        r"^\s*#{2,}\s*(system|instruction|assistant)s?\b\s*:?|^\s*(system|assistant)\s*:\s+\S",
    ),
    _p("sets a system prompt", "role_tag", 0.45, r"\bsystem (prompt|message|instruction)s?\s*[:=]|\[system\]"),
    # Words addressed to an AI reader rather than a person.
    _p(
        "addresses an AI reader",
        "address",
        0.5,
        rf"\bif you are an? ({_AI}|automated|large language)\b|\b(attention|note|message|instructions?|"
        rf"notice|important)\s*(to|for)\s*(all |any )?(the )?({_AI})\b"
        rf"|\b(dear|hey|hello|hi) {_AI}\b|\b(to|for) (all |any |the )?(automated |autonomous )?{_AI}( only)?\s*[:,]"
        rf"|\b{_AI} (instructions?|directives?|note|task|orders)\s*:"
        rf"|\bto (any|all|the) {_AI} (reading|processing|summari[sz]ing|"
        rf"browsing|parsing|visiting|crawling)\b"
        rf"|\b{_AI} (reading|processing|summari[sz]ing|browsing|parsing|crawling|visiting) this( page|"
        rf" site| document| text| content)?\b",
    ),
    _p(
        "tells an AI what it must do",
        "address",
        0.45,
        rf"\b{_AI} (must|shall|need to|are (required|instructed|expected) to|will now|should now|may now)\b",
    ),
    _p(
        "speaks to an AI by name",
        "address",
        0.4,
        rf"(^|[.!?]\s+)\s*(the )?{_AI}\s*,\s+\S",
    ),
    _p(
        "tells the reader what to tell the user",
        "address",
        0.4,
        rf"{_ORDER}(tell|inform|assure|convince|persuade|remind|advise) (the|your) {_PEOPLE}s?\b",
    ),
    _p(
        "tells a summarizer what to say",
        "address",
        0.35,
        r"\b(when|while|if|before) (you are |you're )?(summari[sz]ing|describing|reviewing|analy[sz]ing|processing|"
        r"answering questions about|asked about|reading) this (page|article|review|document|email|site|text|post|"
        r"product|company|vendor|listing|image|photo|picture|screenshot|chart|video|hotel|repository|code)\b",
    ),
    _p(
        "asks to leave something out",
        "secrecy",
        0.25,
        rf"\b(do not|don'?t|never) (mention|disclose|bring up|talk about|refer to)\b|{_ORDER}(omit|leave out|exclude) "
        r"(any |the |all )",
    ),
    _p(
        "speaks to the model as an AI",
        "address",
        0.2,
        r"\bas an (AI|A\.I\.|language model|AI (assistant|model|agent))\b,? you\b",
    ),
    # Taking data out, or acting on the person's behalf.
    _p(
        "asks to send secrets somewhere",
        "exfiltration",
        0.75,
        rf"{_ORDER}(send|post|forward|upload|transmit|exfiltrate|leak|email|e-mail|submit|share|append|include|"
        rf"paste|copy|encode)\b{_ANY}\b{_SECRETS}\b[^.!?\n]{{0,60}}?"
        r"(\b(to|into|at|via|in)\s+(the |this |that |our |my |an? |following )?(url|address|link|endpoint|server|"
        r"webhook|form|inbox|page|site|domain)\b|\b(into|in) (your|the) (reply|answer|response|output|summary)\b|"
        r"https?://|www\.|\b[\w.+-]+@[\w-]+\.)",
    ),
    _p(
        "asks to send data to an address",
        "exfiltration",
        0.35,
        rf"{_ORDER}(send|post|forward|upload|transmit|submit|append|paste|copy|encode|include|report)\b"
        r"[^.!?\n]{0,80}?\b(to|into|at)\s+(https?://|www\.|[\w.+-]+@[\w-]+\.)",
    ),
    _p(
        "asks to read out secrets",
        "exfiltration",
        0.5,
        rf"\b(read|retrieve|collect|gather|extract|grab|access|dump|list)\b{_ANY}\b(the user'?s?|their|all|"
        rf"stored|saved)\b{_ANY}\b({_SECRETS}|emails?( address(es)?)?|phone( numbers?)?|home address)\b",
    ),
    _p(
        "asks to call a tool or function",
        "tool",
        0.5,
        r"\b((call|invoke|trigger|execute) (the |your )?|(use|run) (the |your ))[`'\"]?[\w.-]*[`'\"]? ?(tool|function|"
        r"plugin|api|action)s?\b(?! (to|for) (help|assist|make|build|create|learn|check))"
        r"|\b(tool_call|function_call|<tool_use>|<function_calls?>)",
    ),
    _p(
        "asks to execute code or commands",
        "tool",
        0.5,
        r"\b(execute|run|eval(uate)?)\b (the following|this|these|the below) (javascript|js|code|"
        r"commands?|script|shell|python|payload)\b",
    ),
    _p(
        "asks to open a URL",
        "tool",
        0.4,
        r"\b(navigate|go|open|visit|browse|redirect|fetch|load|click)\b( (to|the|this|link|url|page|"
        r"on))*\s*[:\-]?\s*https?://\S+",
    ),
    _p(
        "asks to act on the person's behalf",
        "tool",
        0.45,
        r"\b(immediately|now|silently|quietly|automatically|secretly) (purchase|buy|transfer|pay|wire|approve|"
        r"delete|download|install|subscribe|sign up|grant|change|update|modify|cancel|place|confirm|submit|disable|"
        r"turn off|enable|send|accept)\b",
    ),
    _p(
        "asks to act without the person's consent",
        "secrecy",
        0.35,
        rf"\bwithout (asking|confirmation|confirming|checking|approval|consent|permission|(the |your )?{_PEOPLE}'?s? "
        r"(consent|approval|permission|knowledge|confirmation))\b",
    ),
    _p(
        "asks to weaken the person's security",
        "tool",
        0.5,
        rf"{_ORDER}(turn off|disable|deactivate|remove|bypass) (the |their |your |all )?(two[- ]factor|2fa|mfa|"
        r"multi[- ]factor|security (settings|checks|warnings)|antivirus|firewall|login alerts)",
    ),
    # Keeping it from the person.
    _p(
        "asks to hide something from the user",
        "secrecy",
        0.6,
        r"\b(do not|don'?t|never|without)\b (tell|telling|inform|informing|mention|mentioning|reveal|"
        r"revealing|alert|alerting|notify|notifying|show|showing|ask|asking|let)\b[^.!?\n]{0,25}?\b(the |"
        r"your )?(user|human|person|owner|operator|customer|reader)s?\b",
    ),
    _p(
        "asks to keep it secret",
        "secrecy",
        0.35,
        r"\b(keep this|this (message|instruction) is) (secret|confidential|hidden|between us)\b|"
        r"\bdo not (mention|reveal|disclose) (this|these) (instruction|message|note)s?\b",
    ),
    # Getting the model to give itself away.
    _p(
        "asks to reveal the system prompt",
        "leak",
        0.55,
        r"\b(reveal|print|show|repeat|output|display|leak|tell me|write out|recite|share|paste|give|provide|"
        r"post|send)\b (me |us )?(your|the) (full |entire |original |initial |hidden |secret |internal )?"
        r"(system (prompt|message)|instructions|initial prompt|hidden prompt|configuration|prompt)\b",
    ),
    # Weak markers: they only add to stronger evidence.
    _p("urgent framing", "weak", 0.1, r"\b(IMPORTANT|URGENT|ATTENTION|CRITICAL|WARNING)\s*[:!]"),
    _p("mentions jailbreaking", "weak", 0.1, r"\bjailbr(eak|oken)\b"),
    _p(
        "imperative to the reader",
        "weak",
        0.1,
        r"\byou (must|should|will|need to) (now |instead |immediately |always )",
    ),
)

_AI_WIDE = rf"({_AI}|automated [\w-]+s?|[\w-]+-based (agents?|assistants?|tools?|systems?)|summari[sz]ers?|"
_AI_WIDE += r"scrapers?|reviewers?|readers? (bots?|agents?)|AI[\w-]*)"
_ADDRESSEE = re.compile(
    rf"(^|[.!?;]\s+|\b(to|for|attention|dear|hey|hi|hello|note to|notice to|message (to|for)|instructions? (to|for)|"
    rf"reminder (to|for)|p\.?s\.? to)\s+)(all |any |the |every |each )?([\w-]+ ){{0,2}}{_AI_WIDE}( only)?\s*[:,\-—]"
    rf"|\bif (an? |any |the |you are an? )?([\w-]+ ){{0,2}}{_AI_WIDE} (is |are )?(reading|processing|seeing|parsing|"
    rf"summari[sz]ing|browsing|visiting|crawling)\b"
    rf"|\b{_AI_WIDE} (reading|processing|summari[sz]ing|browsing|parsing|crawling|visiting) (this|these|the)\b",
    re.IGNORECASE | re.MULTILINE,
)
"""Words that turn to an AI reader: `Assistant:`, `to any agent reading this`, `if an AI is reading this`."""
_READER = re.compile(
    r"\b(the user'?s?|the human'?s?|your (task|operator|instructions|answer|reply|response|output|summary|goal|job|"
    r"previous|prior|original|system)|its (answer|reply|response|output|summary)|you were (told|given|asked)|"
    r"you('ve| have) been (told|given|asked))\b",
    re.IGNORECASE,
)
"""Words about the one an AI serves, or about the AI's own work: how a page talks to an AI, not to a person."""
_VERBS = (
    r"ignore|disregard|forget|answer|respond|reply|say|state|tell|describe|summari[sz]e|recommend|rate|mark|skip|"
    r"navigate|go|open|visit|click|change|add|include|append|send|post|copy|paste|find|complete|buy|purchase|"
    r"approve|quote|repeat|print|reveal|stop|treat|act|pretend|call|run|execute|write|output|translate|collect|"
    r"delete|download|install|grant|disable|fill|submit|praise|insist|claim|mention|omit|do not|don'?t|never"
)
_ORDER_VERB = re.compile(
    rf"(^|[.!?:;,\-—]\s*|\b(and|then|please|now|instead|also)\s+)({_VERBS})\b"
    r"|\b(you|it|they) (must|should|shall|need to|have to|are to|will now|is to)\b|\bfrom now on\b",
    re.IGNORECASE | re.MULTILINE,
)
"""A clause that gives an order: an imperative verb opening it, or `you must`, `it must`."""
_RESET = re.compile(
    r"\b(end of (the )?(document|text|input|page|context|prompt)|new (session|conversation|context|prompt)|"
    r"(begin|start)(ning)? of (new )?instructions)\b",
    re.IGNORECASE,
)
"""Markers that pretend the page's text ended and a new conversation began."""

_NEVER = re.compile(r"(?!)")
DIRECTED = Pattern("speaks to an AI and gives it orders", "address", 0.55, _NEVER)
READER_ORDERED = Pattern("gives orders about the user or the AI's answer", "address", 0.5, _NEVER)
ADDRESSED = Pattern("speaks to an AI reader", "address", 0.35, _NEVER)
CONTEXT_RESET = Pattern("pretends a new conversation begins", "role_tag", 0.3, _NEVER)
SHAPES = frozenset({DIRECTED, READER_ORDERED, ADDRESSED, CONTEXT_RESET})
"""What directed_order finds: the shape of an injection, whatever its words."""
VISIBLE_SHAPE_FACTOR = 0.5

_EDUCATIONAL = re.compile(
    r"\b(prompt injections?|injection attacks?|jailbreak(s|ing)? (attempts?|attacks?|prompts?)|for (example|instance)|"
    r"e\.g\.|such as|(?<![./@-])example(?![./@-])|attackers?|researchers?|red[- ]team(ing|ers)?|adversarial|malicious|"
    r"defen[cs]es?|defend|mitigat\w+|vulnerab\w+|exploits?|owasp|sanitiz\w+|phrases? like|strings? like|"
    r"tricks? like|payloads?|test cases?)\b",
    re.IGNORECASE,
)
_QUOTED = re.compile(  # straight and curly quotes, backticks, guillemets
    r"\"[^\"\n]{3,300}\"|\u201c[^\u201d\n]{3,300}\u201d|'[^'\n]{6,300}'|\u2018[^\u2019\n]{6,300}\u2019|`[^`\n]{3,300}`|"
    r"\u00ab[^\u00bb\n]{3,300}\u00bb"
)

_URLS = re.compile(r"\bhttps?://\S+|\bwww\.\S+|\b[\w.+-]+@[\w-]+\.[\w.]+")
"""Addresses: the words in them (evil-example.net) say nothing about the text around them."""

QUOTED_FACTOR = 0.4
"""A pattern found only inside quotes or code, in text a person can read: a quotation, most likely."""
EDUCATIONAL_FACTOR = 0.6
"""Visible text that talks about attacks (examples, defences): a discussion, most likely."""
HIDDEN_BOOST = 0.6
"""Hidden text that gives an order: most of the way to certain."""
UNSEEN_BOOST = 0.4
ATTRIBUTE_BOOST = 0.3
SECOND_FINDING_SHARE = 0.3
"""How much a page's second-strongest finding adds to its strongest."""


@dataclass(frozen=True)
class Hit:
    pattern: Pattern
    start: int
    end: int


@dataclass(frozen=True)
class Scored:
    score: float
    reasons: tuple[str, ...]
    excerpt: str


def hits_in(text: str) -> list[Hit]:
    """The first match of each pattern in `text`."""
    found = []
    for pattern in PATTERNS:
        match = pattern.regex.search(text)
        if match:
            found.append(Hit(pattern, match.start(), match.end()))
    return found


def _combine(weights: Iterable[float]) -> float:
    miss = 1.0
    for w in weights:
        miss *= 1.0 - w
    return 1.0 - miss


def _inside_quotes(text: str, hit: Hit) -> bool:
    return any(q.start() <= hit.start and hit.end <= q.end() for q in _QUOTED.finditer(text))


def _boost(score: float, amount: float) -> float:
    """Raise `score` toward 1 by `amount` of what is left (0 stays 0: a boost needs evidence)."""
    return score + (1.0 - score) * amount * min(1.0, score / 0.3)


def excerpt_around(text: str, start: int, end: int, limit: int = EXCERPT_CHARS) -> str:
    """A short window of `text` around [start, end), spaces collapsed, '…' where cut."""
    pad = max(0, (limit - (end - start)) // 2)
    a, b = max(0, start - pad), min(len(text), end + pad)
    piece = " ".join(text[a:b].split())
    if len(piece) > limit:
        piece = piece[:limit].rstrip()
    return ("…" if a > 0 else "") + piece + ("…" if b < len(text) else "")


def directed_order(text: str) -> Hit | None:
    """Text that speaks to an AI reader (or about "the user" to whoever serves them) and gives orders,
    however it is worded: the shape of an injection rather than its phrases."""
    addressee = _ADDRESSEE.search(text)
    reader = _READER.search(text)
    order = _ORDER_VERB.search(text)
    reset = _RESET.search(text)
    found = addressee or reader or reset
    if found is None:
        return None
    if addressee and order:
        pattern = DIRECTED
    elif reader and order:
        pattern = READER_ORDERED
    elif addressee or (reader and reset):
        pattern = ADDRESSED
    elif reset:
        pattern = CONTEXT_RESET
    else:
        return None
    return Hit(pattern, found.start(), found.end())


def score_segment(text: str, location: str, *, code: bool = False, hidden_by: str = "") -> Scored:
    """How likely `text`, found at `location`, is an injection aimed at an AI reader (0 to 1)."""
    hits = hits_in(text)
    directed = directed_order(text)
    if directed is not None:
        # The same words found twice ("Assistant:" as a role header and as an address) count once.
        overlapping = [h for h in hits if h.start < directed.end and directed.start < h.end]
        if all(h.pattern.weight < directed.pattern.weight for h in overlapping):
            hits = [h for h in hits if h not in overlapping] + [directed]
    strong = [h for h in hits if h.pattern.kind != "weak"]
    if not strong:
        return Scored(0.0, (), "")
    unseen = (location in HIDDEN_LOCATIONS and hidden_by not in READABLE_HIDING) or location in UNSEEN_LOCATIONS
    weights = []
    for h in hits:
        weight = h.pattern.weight
        if not unseen:
            # A mention rather than an order: quoted, or in <code>. And the shape of an order alone is
            # common in text for people ("Assistant, open the door" in a story): it counts for less there.
            if code or _inside_quotes(text, h):
                weight *= QUOTED_FACTOR
            if h.pattern in SHAPES:
                weight *= VISIBLE_SHAPE_FACTOR
        weights.append(weight)
    score = _combine(weights)
    # Every strong pattern speaks to an AI reader; where no person reads it, that is all but an attack.
    if location in HIDDEN_LOCATIONS and hidden_by not in READABLE_HIDING:
        score = _boost(score, HIDDEN_BOOST)
    elif location in UNSEEN_LOCATIONS:
        score = _boost(score, UNSEEN_BOOST)
    else:
        if location in ATTRIBUTE_LOCATIONS:
            score = _boost(score, ATTRIBUTE_BOOST)
        # Visible text that talks about attacks (examples, defences): a discussion, most likely.
        if _EDUCATIONAL.search(_URLS.sub(" ", text)):
            score *= EDUCATIONAL_FACTOR
    first = min(strong, key=lambda h: h.start)
    reasons = tuple(dict.fromkeys(h.pattern.reason for h in sorted(hits, key=lambda h: -h.pattern.weight)))
    return Scored(round(min(score, 1.0), 3), reasons, excerpt_around(text, first.start, first.end))


def verdict_for(score: float) -> Verdict:
    if score >= LIKELY_AT:
        return "likely_injection"
    if score >= SUSPICIOUS_AT:
        return "suspicious"
    return "clean"


def page_score(scores: Iterable[float]) -> float:
    """The page's score: its strongest finding, a little more when another one backs it up."""
    ordered = sorted(scores, reverse=True)
    if not ordered:
        return 0.0
    top = ordered[0]
    second = ordered[1] if len(ordered) > 1 else 0.0
    return round(min(1.0, top + (1.0 - top) * second * SECOND_FINDING_SHARE), 3)


def assess(segments: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The findings, score and verdict of a page's segments ({location, text, selector?, hidden_by?,
    attribute?, code?})."""
    findings: list[dict[str, Any]] = []
    for segment in segments:
        text = str(segment.get("text") or "")
        location = str(segment.get("location") or "visible_text")
        scored = score_segment(
            text, location, code=bool(segment.get("code")), hidden_by=str(segment.get("hidden_by") or "")
        )
        if scored.score <= 0:
            continue
        finding: dict[str, Any] = {
            "location": location,
            "selector": str(segment.get("selector") or ""),
            "excerpt": scored.excerpt,
            "reason": "; ".join(scored.reasons),
            "score": scored.score,
        }
        for extra in ("hidden_by", "attribute"):
            if segment.get(extra):
                finding[extra] = str(segment[extra])
        findings.append(finding)
    score = page_score(f["score"] for f in findings)
    shown = sorted((f for f in findings if f["score"] >= REPORTED_AT), key=lambda f: -f["score"])
    return {"score": score, "verdict": verdict_for(score), "findings": shown[:MAX_FINDINGS]}
