#!/usr/bin/env python3
"""Every frame of Spec/clawline.yaml as msgspec Structs, as strict as msgspec can make them.

msgspec (a C extension) decodes JSON straight into typed Structs in one pass, with tagged unions
and per-field constraints: the fastest frame checker a Python developer would pick. Each capture
line (an envelope `{"session", "dir", "ts", "frame"}`) decodes as one tagged union on `dir`, whose
`frame` is the tagged union (on `type`) of that direction's frames, so a line is parsed and checked
in a single pass.

What msgspec cannot state, and so this checker does not check (`wire validate` does):

- conditional rules: `pair_decision` needs `userId` when `approve` is true; a server `message`
  with `role: user` needs `deviceId` and `streaming: false`, and one with `role: assistant` must
  not carry `deviceId`;
- a union chosen by a second field: `pair_result` and `auth_result` are told apart by `success`
  inside frames already told apart by `type` (msgspec has one tag field per union), so each is one
  Struct with every field of both cases optional: a success without `token` or `userId`, or a
  failure without `reason`, passes;
- fields a frame must not carry (`rejectFields`: `reason` on a success, `role` on a client
  `typing`): forbidding unknown fields would refuse every other extra field too;
- byte lengths (`maxBytes`: UTF-8 bytes); msgspec counts characters, so these are character limits
  here, looser for text outside ASCII; an image's decoded size (`maxDecodedBytes`) is likewise a
  length of its base64 text, and the base64 is checked by a pattern, not decoded;
- byte budgets summed over several fields (a message's inline image bytes, its content plus
  attachments);
- the session: phases, answers that must follow their question, ids unique per connection,
  replay runs, rate limits (msgspec checks one frame at a time).

Run it on a capture as a whole process (it prints the count of lines that fail):

    python3 Benchmarks/python/clawline_msgspec.py /tmp/capture.jsonl
"""
import sys
from typing import Annotated, Literal, Optional, Union

import msgspec
from msgspec import Meta, Struct

UUID_V4 = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$"

DeviceId = Annotated[str, Meta(pattern=UUID_V4)]
UserId = Annotated[str, Meta(min_length=1)]
ClientMessageId = Annotated[str, Meta(pattern="^c_", min_length=3)]
ServerEventId = Annotated[str, Meta(pattern="^s_", min_length=3)]
AssetId = Annotated[str, Meta(pattern="^a_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")]
SessionId = Annotated[str, Meta(min_length=1)]
# maxBytes: 64 (UTF-8 bytes) in the spec; msgspec counts characters.
ClaimedName = Annotated[str, Meta(max_length=64)]
ShortText = Annotated[str, Meta(min_length=1, max_length=64)]
# Open enums: any string is valid on the wire.
Role = str
ErrorCode = str
PairFailureReason = str
AuthFailureReason = str
ImageMimeType = Literal["image/png", "image/jpeg", "image/gif", "image/webp", "image/heic"]


class DeviceInfo(Struct):
    platform: ShortText
    model: ShortText
    osVersion: Optional[Annotated[str, Meta(max_length=64)]] = None
    appVersion: Optional[Annotated[str, Meta(max_length=64)]] = None


class ImageAttachment(Struct, tag_field="type", tag="image"):
    mimeType: ImageMimeType
    # base64 text, padding optional as the spec has it (msgspec's `bytes` insists on padding); at
    # most 262144 decoded bytes (maxDecodedBytes), stated as the 349528 characters that encode them.
    data: Annotated[str, Meta(min_length=1, max_length=349528, pattern="^[A-Za-z0-9+/]*={0,2}$")]


class AssetAttachment(Struct, tag_field="type", tag="asset"):
    assetId: AssetId


Attachment = Union[ImageAttachment, AssetAttachment]


# Client frames.


class PairRequest(Struct, tag_field="type", tag="pair_request"):
    protocolVersion: Literal[1]
    deviceId: DeviceId
    deviceInfo: DeviceInfo
    claimedName: Optional[ClaimedName] = None


class Auth(Struct, tag_field="type", tag="auth"):
    protocolVersion: Literal[1]
    token: str
    deviceId: DeviceId
    # notBlank: not empty and not only white space.
    lastMessageId: Optional[Annotated[str, Meta(pattern=r"\S")]] = None


class PairDecision(Struct, tag_field="type", tag="pair_decision"):
    deviceId: DeviceId
    approve: bool
    userId: Optional[UserId] = None


class ClientMessage(Struct, tag_field="type", tag="message"):
    id: ClientMessageId
    # maxBytes: 65536 in the spec.
    content: Annotated[str, Meta(min_length=1, max_length=65536)]
    attachments: Optional[Annotated[list[Attachment], Meta(max_length=4)]] = None


class ClientTyping(Struct, tag_field="type", tag="typing"):
    active: bool


ClientFrame = Union[PairRequest, Auth, PairDecision, ClientMessage, ClientTyping]


# Server frames.


class PairResult(Struct, tag_field="type", tag="pair_result"):
    success: bool
    token: Optional[Annotated[str, Meta(min_length=1)]] = None
    userId: Optional[UserId] = None
    reason: Optional[PairFailureReason] = None


class PairApprovalRequest(Struct, tag_field="type", tag="pair_approval_request"):
    deviceId: DeviceId
    deviceInfo: DeviceInfo
    claimedName: Optional[ClaimedName] = None


class AuthResult(Struct, tag_field="type", tag="auth_result"):
    success: bool
    userId: Optional[UserId] = None
    sessionId: Optional[SessionId] = None
    replayCount: Optional[Annotated[int, Meta(ge=0)]] = None
    replayTruncated: Optional[bool] = None
    historyReset: Optional[bool] = None
    isAdmin: Optional[bool] = None
    reason: Optional[AuthFailureReason] = None


class ServerMessage(Struct, tag_field="type", tag="message"):
    id: ServerEventId
    role: Role
    content: str
    timestamp: Annotated[int, Meta(ge=0)]
    streaming: bool
    deviceId: Optional[DeviceId] = None
    attachments: Optional[list[Attachment]] = None


class Ack(Struct, tag_field="type", tag="ack"):
    id: ClientMessageId


class ServerTyping(Struct, tag_field="type", tag="typing"):
    role: Literal["assistant"]
    active: bool


class Error(Struct, tag_field="type", tag="error"):
    code: ErrorCode
    message: str
    messageId: Optional[str] = None


ServerFrame = Union[PairResult, PairApprovalRequest, AuthResult, ServerMessage, Ack, ServerTyping, Error]


# Capture envelopes: one union on `dir`, so an envelope and its frame decode in one pass.


class ClientEnvelope(Struct, tag_field="dir", tag="client"):
    session: str
    ts: int
    frame: ClientFrame


class ServerEnvelope(Struct, tag_field="dir", tag="server"):
    session: str
    ts: int
    frame: ServerFrame


decoder = msgspec.json.Decoder(Union[ClientEnvelope, ServerEnvelope])


def is_valid(line):
    """Whether one capture line decodes, and its frame passes every check above."""
    try:
        decoder.decode(line)
        return True
    except msgspec.DecodeError:  # ValidationError is a DecodeError too
        return False


def main():
    invalid = 0
    lines = 0
    with open(sys.argv[1], "rb") as capture:
        for line in capture:
            if line.strip():
                lines += 1
                if not is_valid(line):
                    invalid += 1
    print(f"{lines} frames, {invalid} invalid")
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
