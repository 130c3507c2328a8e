import Foundation
import LatchkeyAPI
import LatchkeyRuntime
import Logging
import Tracing
import WebAuthn

/// The two ceremonies of DESIGN §1 — registration (a new account, or another passkey for one) and
/// login — from options to a verified credential and a session.
///
/// The challenge is the ceremony: what the finish needs is sealed inside it (`ChallengeSealer`), so
/// options write nothing and any instance can finish what another started. A challenge completes one
/// ceremony at most: the completing transaction records its digest, within its lifetime.
struct CeremonyService: Sendable {
    let store: Store
    let sealer: ChallengeSealer
    let configuration: ServerConfiguration
    let sessions: SessionService
    let metrics: CeremonyMetrics
    let now: @Sendable () -> Date
    /// Derived from the configuration once, not on every verification.
    private let relyingParty: RelyingParty
    /// Which authenticators may register (the operator's settings).
    let policy: AuthenticatorPolicy
    /// The configured hints as the options carry them (nil: none configured, no member sent).
    private let registrationHints: [String]?
    private let loginHints: [String]?
    /// The login options' prf extension with the configured salt (`--prf-salt`); nil without one.
    private let configuredPRF: PRFInputsJSON?
    /// The ceremony's span and its verification's, when a tracer is bootstrapped (`Spans`).
    let spans: Spans

    init(
        store: Store, sealer: ChallengeSealer, configuration: ServerConfiguration, sessions: SessionService, metrics: CeremonyMetrics,
        policy: AuthenticatorPolicy, now: @escaping @Sendable () -> Date
    ) {
        self.policy = policy
        self.store = store
        self.sealer = sealer
        self.configuration = configuration
        self.sessions = sessions
        self.metrics = metrics
        self.now = now
        self.relyingParty = configuration.relyingParty
        registrationHints = configuration.registrationHints.isEmpty ? nil : configuration.registrationHints.map(\.rawValue)
        loginHints = configuration.loginHints.isEmpty ? nil : configuration.loginHints.map(\.rawValue)
        // Checked by `validate()`; sent in canonical base64url.
        configuredPRF = configuration.prfSalt.flatMap(Base64URL.decode).map { PRFInputsJSON(eval: PRFValuesJSON(first: Base64URL.encode($0))) }
        spans = Spans()
    }

    /// Latchkey's algorithm preference (issue 5): ES256, EdDSA, ES384, RS256, PS256.
    static let offeredAlgorithms: [COSEAlgorithm] = [.es256, .edDSA, .es384, .rs256, .ps256]

    // MARK: Registration

    /// Options for a new account: only where the sign-up policy takes strangers (`--signup open`).
    func registrationOptions(displayName: String) async throws -> PublicKeyCredentialCreationOptionsJSON {
        try configuration.requireOpenSignUp()
        let name = try InputRules.displayName(displayName)
        let userHandle = RandomBytes.make(64)
        let challenge = sealer.seal(PendingCeremony(
            kind: .registration, accountId: nil, userHandle: userHandle, displayName: name, expiresAt: now() + configuration.ceremonyTTL))
        metrics.started(.registration)
        return creationOptions(challenge: challenge, userHandle: userHandle, userName: name, displayName: name, exclude: [])
    }

    /// Options to add a passkey to the account of `session`, which must be recent (a passkey outlives
    /// every session) and whose account must have room for one more.
    func addPasskeyOptions(
        session: SessionDetails, account: AccountRecord, name: String?
    ) async throws -> PublicKeyCredentialCreationOptionsJSON {
        guard session.createdAt >= now() - configuration.addPasskeyWindow else { throw APIError.recentSignInRequired }
        let accountId = account.id
        let existing = try await store.credentials(accountId: accountId)
        guard existing.count < configuration.maxPasskeysPerAccount else {
            metrics.failed(.addPasskey, reason: APIError.tooManyPasskeys(configuration.maxPasskeysPerAccount).code)
            throw APIError.tooManyPasskeys(configuration.maxPasskeysPerAccount)
        }
        let passkeyName = try name.map(InputRules.passkeyName) ?? "Passkey \(existing.count + 1)"
        let challenge = sealer.seal(PendingCeremony(
            kind: .addPasskey, accountId: accountId, userHandle: account.userHandle, displayName: passkeyName,
            expiresAt: now() + configuration.ceremonyTTL))
        metrics.started(.addPasskey)
        return creationOptions(
            challenge: challenge, userHandle: account.userHandle, userName: account.displayName, displayName: account.displayName,
            exclude: existing.map { CredentialDescriptorJSON(id: Base64URL.encode($0.id), transports: $0.transports.isEmpty ? nil : $0.transports) })
    }

    private func creationOptions(
        challenge: [UInt8], userHandle: [UInt8], userName: String, displayName: String, exclude: [CredentialDescriptorJSON]
    ) -> PublicKeyCredentialCreationOptionsJSON {
        PublicKeyCredentialCreationOptionsJSON(
            rp: RelyingPartyEntityJSON(id: configuration.rpId, name: configuration.rpName),
            user: UserEntityJSON(id: Base64URL.encode(userHandle), name: userName, displayName: displayName),
            challenge: Base64URL.encode(challenge),
            pubKeyCredParams: Self.offeredAlgorithms.map { CredentialParametersJSON(alg: $0.rawValue) },
            timeout: configuration.ceremonyTimeoutMilliseconds, excludeCredentials: exclude,
            authenticatorSelection: AuthenticatorSelectionJSON(
                residentKey: "required", requireResidentKey: true, userVerification: configuration.userVerification.rawValue),
            hints: registrationHints, attestation: configuration.attestation.rawValue,
            // credProps: whether the passkey is discoverable; prf: whether it can evaluate a PRF later.
            extensions: ExtensionInputsJSON(credProps: true, prf: PRFInputsJSON()))
    }

    enum RegistrationOutcome: Sendable {
        case newAccount(token: SessionToken, account: AccountRecord)
        case addedPasskey(CredentialRecord)
    }

    /// Verifies a registration response. `sessionAccountId` is the caller's account when it presented a
    /// token: adding a passkey needs the same account that asked for the options. The new account or
    /// passkey is audited as coming from `origin`, in the same commit.
    /// With `recovery` (the caller is a restricted session), the passkey uses up its grant in the same
    /// commit, and ends the account's sessions as configured.
    ///
    /// Its span, `ceremony.registration`, is opened here and the ceremony run by a call with `traced: false`
    /// and that `span`, which learns the ceremony's kind (`latchkey.ceremony`: registration or add-passkey)
    /// once the challenge is open; off, the ceremony runs in this call itself (no frame more than before
    /// there were spans).
    func verifyRegistration(
        _ credential: RegistrationResponseJSON, sessionAccountId: String?, origin: AuditOrigin, recovery: RecoveryUse? = nil,
        traced: Bool = true, span: (any Tracing.Span)? = nil
    ) async throws -> RegistrationOutcome {
        if traced, spans.isOn {
            return try await spans.span("ceremony.registration") { span in
                try await verifyRegistration(
                    credential, sessionAccountId: sessionAccountId, origin: origin, recovery: recovery, traced: false, span: span)
            }
        }
        let (challenge, clientOrigin) = try Self.challenge(in: credential.response.clientDataJSON, ceremony: .registration)
        guard let ceremony = sealer.open(challenge, now: now()), ceremony.kind != .login, ceremony.kind != .console, ceremony.kind != .confirm else {
            metrics.failed(.registration, reason: APIError.unknownChallenge.code)
            throw APIError.unknownChallenge
        }
        let kind: CeremonyMetrics.Ceremony = ceremony.kind == .addPasskey ? .addPasskey : .registration
        span?.attributes["latchkey.ceremony"] = ceremony.kind == .addPasskey ? "add-passkey" : "registration"
        // A new account's finish asks the sign-up policy again: its options may have been sealed by another
        // instance, or before a restart, under another `--signup`.
        if ceremony.kind == .registration, !configuration.effectiveSignUp.admitsStrangers {
            metrics.failed(kind, reason: ErrorCode.signupClosed.rawValue)
            throw SignUpPolicy.refusal
        }
        if ceremony.kind == .addPasskey, ceremony.accountId != sessionAccountId {
            metrics.failed(kind, reason: ErrorCode.wrongAccount.rawValue)
            throw APIError(.wrongAccount, "This passkey ceremony was started by another session.")
        }
        // The model's FIDO metadata, by the AAGUID the response claims (verified below): its attestation
        // roots join the configured anchors, so a chain to them is verified, and one to anything else fails.
        var party = relyingParty
        var metadata: MetadataRecord?
        if let aaguid = credential.claimedAAGUID { metadata = try await store.metadata.entry(aaguid: aaguid) }
        if let metadata { party.trustAnchors.add(derCertificates: metadata.rootCertificates, forAAGUID: metadata.aaguid) }
        let result: RegistrationResult
        let verifier = RegistrationVerifier(relyingParty: party)
        do {
            if spans.isOn {
                result = try await spans.span("webauthn.verify") { span in
                    span?.attributes["webauthn.ceremony"] = "registration"
                    do throws(WebAuthnError) {
                        return try await verifier.verify(credential, expectedChallenge: challenge, allowedAlgorithms: Self.offeredAlgorithms)
                    } catch {
                        span?.attributes["webauthn.rule"] = error.code
                        throw error
                    }
                }
            } else {
                result = try await verifier.verify(credential, expectedChallenge: challenge, allowedAlgorithms: Self.offeredAlgorithms)
            }
        } catch let error as WebAuthnError {
            metrics.failed(kind, reason: error.code)
            throw APIError(error)
        }
        let compromised = metadata.flatMap { record in
            record.aaguid == result.aaguid
                ? MetadataRefusal.refusal(record, name: policy.providers.provider(aaguid: record.aaguid)?.name ?? record.description) : nil
        }
        if let refusal = policy.refusal(aaguid: result.aaguid, backupEligible: result.backupEligible, attestationType: result.attestationType)
            ?? compromised {
            metrics.failed(kind, reason: ErrorCode.authenticatorNotAllowed.rawValue)
            // Audited where there is an account (adding a passkey); a refused sign-up has none, and an
            // anonymous caller's refusals are only counted.
            if ceremony.kind == .addPasskey, let accountId = ceremony.accountId {
                try await store.record(origin.acting(as: "person").event(.passkeyRefused, at: now(), account: accountId, detail: [
                    "aaguid": .text(AAGUIDFormat.string(result.aaguid)), "rule": .text(refusal),
                ]))
            }
            throw APIError(.authenticatorNotAllowed, refusal)
        }
        let created = now()
        let record = CredentialRecord(
            id: result.credentialId, accountId: ceremony.accountId ?? UUID().uuidString.lowercased(), publicKey: result.publicKey,
            algorithm: result.publicKeyAlgorithm.rawValue, signCount: result.signCount, transports: InputRules.transports(result.transports),
            aaguid: result.aaguid, attestationFormat: result.attestationFormat, backupEligible: result.backupEligible,
            backupState: result.backupState, uvInitialized: result.userVerified,
            name: String((ceremony.displayName ?? "Passkey").prefix(64)), createdAt: created, lastUsedAt: nil,
            attestationVerified: result.trustPathVerified, createdOrigin: clientOrigin,
            discoverable: result.residentKey, prfEnabled: result.prfEnabled)
        let used = UsedChallenge(digest: ChallengeSealer.digest(challenge), expiresAt: ceremony.expiresAt)
        let actor = switch recovery?.source {
        case nil: "person"
        case .grant?: "recovery"
        case .deviceRequest?: "new-device"
        case .invitation?: "invitation"
        }
        let person = origin.acting(as: actor)
        let added = person.event(.passkeyAdded, at: created, account: record.accountId, credential: record.id, detail: [
            "name": .text(record.name), "aaguid": .text(AAGUIDFormat.string(record.aaguid)),
            "attestationFormat": .text(record.attestationFormat), "backupEligible": .flag(record.backupEligible),
        ])
        do {
            switch ceremony.kind {
            case .addPasskey:
                var events = [added]
                // An invitation's use was audited when it made the account (`invite.used`): its passkey is the account's first.
                if let recovery, recovery.source != .invitation {
                    events.append(person.event(
                        recovery.viaDeviceRequest ? .deviceCompleted : .recoveryCompleted, at: created, account: record.accountId,
                        credential: record.id, detail: [
                            recovery.viaDeviceRequest ? "requestId" : "grantId": .text(recovery.grantId),
                            "sessionsEnded": .text(recovery.endsSessions ? "all" : "this"),
                        ]))
                }
                try await store.ceremonies.addCredential(
                    record, challenge: used, limit: configuration.maxPasskeysPerAccount, events: events, recovery: recovery)
                metrics.succeeded(kind)
                return .addedPasskey(record)
            default:
                guard let userHandle = ceremony.userHandle, let displayName = ceremony.displayName else {
                    throw APIError.unknownChallenge
                }
                let account = AccountRecord(
                    id: record.accountId, userHandle: userHandle, displayName: displayName, credo: "", createdAt: created, updatedAt: created)
                let events = [person.event(.accountCreated, at: created, account: account.id, detail: ["displayName": .text(displayName)]), added]
                let token = SessionToken.generate()
                let session = sessions.session(for: token, accountId: account.id, credentialId: record.id, userVerified: result.userVerified)
                try await store.ceremonies.createAccount(account, credential: record, challenge: used, events: events, session: session)
                metrics.succeeded(kind)
                return .newAccount(token: token, account: account)
            }
        } catch Store.Failure.challengeUsed {
            metrics.failed(kind, reason: APIError.unknownChallenge.code)
            throw APIError.unknownChallenge
        } catch Store.Failure.tooManyPasskeys {
            metrics.failed(kind, reason: APIError.tooManyPasskeys(configuration.maxPasskeysPerAccount).code)
            throw APIError.tooManyPasskeys(configuration.maxPasskeysPerAccount)
        } catch Store.Failure.recoveryGrantUsed {
            let refusal = recovery?.source == .invitation ? InvitationService.refused : APIError.invalidRecoveryCode
            metrics.failed(kind, reason: refusal.code)
            throw refusal
        } catch Store.Failure.duplicate {
            // §7.1 step 27: a credential id may be registered only once.
            metrics.failed(kind, reason: ErrorCode.credentialExists.rawValue)
            throw APIError(.credentialExists, "This passkey is already registered.")
        }
    }

    // MARK: Login

    /// Options for a discoverable login. `prf`: the client's own PRF inputs (checked by
    /// `InputRules.prfInputs`), which take the place of the configured salt; nothing of either is kept —
    /// the outputs come back from the client's authenticator, and the server only passes them on.
    func loginOptions(prf requested: PRFInputsJSON? = nil) async throws -> PublicKeyCredentialRequestOptionsJSON {
        // No database work at all: the challenge carries its kind and expiry, sealed.
        let challenge = sealer.seal(PendingCeremony(
            kind: .login, accountId: nil, userHandle: nil, displayName: nil, expiresAt: now() + configuration.ceremonyTTL))
        metrics.started(.login)
        let prf = requested ?? configuredPRF
        // Discoverable login: an empty allowCredentials tells no caller which credential ids exist. A
        // client's evalByCredential is the exception: a browser takes it only beside allowCredentials naming
        // those credentials (L3 §10.1.4), and the ids are the client's own, so listing them tells it nothing.
        let allowed = prf?.evalByCredential.map { $0.keys.sorted().map { CredentialDescriptorJSON(id: $0) } } ?? []
        return PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URL.encode(challenge), timeout: configuration.ceremonyTimeoutMilliseconds, rpId: configuration.rpId,
            allowCredentials: allowed, userVerification: configuration.userVerification.rawValue, hints: loginHints,
            extensions: prf.map { ExtensionInputsJSON(prf: $0) })
    }

    // MARK: Confirming with a passkey

    /// Options to confirm an action with one of the account's own passkeys (approving a new device): its
    /// passkeys allowed, user verification required, `lifetime` to answer.
    func confirmationOptions(accountId: String, lifetime: TimeInterval) async throws -> PublicKeyCredentialRequestOptionsJSON {
        let challenge = sealer.seal(PendingCeremony(kind: .confirm, accountId: accountId, userHandle: nil, displayName: nil, expiresAt: now() + lifetime))
        let allowed = try await store.credentials(accountId: accountId).map {
            CredentialDescriptorJSON(id: Base64URL.encode($0.id), transports: $0.transports.isEmpty ? nil : $0.transports)
        }
        return PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URL.encode(challenge), timeout: Int(lifetime * 1000), rpId: configuration.rpId,
            allowCredentials: allowed, userVerification: "required")
    }

    /// Verifies a confirming assertion for `accountId` inside `write`'s unit of work: `write` gets the
    /// challenge to mark used, the credential id, and the decision to run on the stored passkey (which
    /// also insists on user verification), and answers how it ended.
    func confirm(
        _ credential: AuthenticationResponseJSON, accountId: String,
        write: (UsedChallenge, [UInt8], @escaping @Sendable (CredentialRecord, AccountRecord) -> LoginVerdict) async throws -> ConfirmationOutcome
    ) async throws {
        let (challenge, _) = try Self.challenge(in: credential.response.clientDataJSON, ceremony: .authentication)
        guard let ceremony = sealer.open(challenge, now: now()), ceremony.kind == .confirm, ceremony.accountId == accountId else {
            throw APIError.unknownChallenge
        }
        guard let credentialId = Base64URL.decode(credential.rawId), !credentialId.isEmpty else {
            throw APIError(WebAuthnError(.malformedCredential(field: "rawId", reason: "not base64url"), in: .authentication))
        }
        let used = UsedChallenge(digest: ChallengeSealer.digest(challenge), expiresAt: ceremony.expiresAt)
        let verifier = AuthenticationVerifier(relyingParty: relyingParty)
        let outcome = try await write(used, credentialId) { record, account in
            do throws(WebAuthnError) {
                let stored = try StoredCredential(
                    id: record.id, publicKeyCOSE: record.publicKey, signCount: record.signCount,
                    backupEligible: record.backupEligible, userHandle: account.userHandle)
                let result = try verifier.verify(credential, expectedChallenge: challenge, storedCredential: stored)
                guard result.userVerified else { return .reject(WebAuthnError(.userNotVerified, in: .authentication)) }
                return .accept(LoginWrites(
                    signCount: result.signCount, backupState: result.backupState, userVerified: true,
                    session: NewSession(tokenHash: [], accountId: account.id, credentialId: record.id, createdAt: now(), expiresAt: now(), userVerified: true)))
            } catch {
                return .reject(error)
            }
        }
        switch outcome {
        case .approved, .requestGone: return
        case .unknownChallenge: throw APIError.unknownChallenge
        case .unknownCredential: throw APIError(.unknownCredential, "Confirm with one of this account's own passkeys.")
        case .rejected(let refusal):
            if case .reject(let reason) = refusal.verdict { throw APIError(reason) }
            throw APIError.accountDisabled
        }
    }

    // MARK: The admin console

    /// Options for the admin console's assertion (its sign-in and each step-up): discoverable, with user
    /// verification required whatever `--user-verification` says.
    func consoleOptions() -> PublicKeyCredentialRequestOptionsJSON {
        let challenge = sealer.seal(PendingCeremony(kind: .console, accountId: nil, userHandle: nil, displayName: nil, expiresAt: now() + configuration.ceremonyTTL))
        return PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URL.encode(challenge), timeout: configuration.ceremonyTimeoutMilliseconds, rpId: configuration.rpId,
            allowCredentials: [], userVerification: "required", hints: loginHints)
    }

    /// Verifies a console assertion: the challenge is a console one, spent once; the passkey is known,
    /// its account enabled, the user verified. The passkey's use is recorded as a login's; no ordinary
    /// session is made. Answers the account and the passkey's id.
    func verifyConsoleAssertion(_ credential: AuthenticationResponseJSON) async throws -> (account: AccountRecord, credentialId: [UInt8]) {
        let (challenge, _) = try Self.challenge(in: credential.response.clientDataJSON, ceremony: .authentication)
        guard let ceremony = sealer.open(challenge, now: now()), ceremony.kind == .console else { throw APIError.unknownChallenge }
        guard let credentialId = Base64URL.decode(credential.rawId), !credentialId.isEmpty else {
            throw APIError(WebAuthnError(.malformedCredential(field: "rawId", reason: "not base64url"), in: .authentication))
        }
        let used = UsedChallenge(digest: ChallengeSealer.digest(challenge), expiresAt: ceremony.expiresAt)
        let at = now()
        let outcome = try await store.consoleSessions.recordAssertion(challenge: used, credentialId: credentialId, at: at) { [relyingParty] record, account in
            if account.disabledAt != nil { return .accountDisabled }
            do throws(WebAuthnError) {
                let stored = try StoredCredential(
                    id: record.id, publicKeyCOSE: record.publicKey, signCount: record.signCount,
                    backupEligible: record.backupEligible, userHandle: account.userHandle)
                let result = try AuthenticationVerifier(relyingParty: relyingParty).verify(credential, expectedChallenge: challenge, storedCredential: stored)
                guard result.userVerified else { return .reject(WebAuthnError(.userNotVerified, in: .authentication)) }
                // A counter that did not grow is refused here whatever `--sign-count` says: this is an administrator.
                guard !result.possibleClone else { return .reject(WebAuthnError(.signCountRegression(stored: record.signCount, received: result.signCount))) }
                return .accept(LoginWrites(
                    signCount: result.signCount, backupState: result.backupState, userVerified: true,
                    session: NewSession(tokenHash: [], accountId: account.id, credentialId: record.id, createdAt: at, expiresAt: at, userVerified: true)))
            } catch {
                return .reject(error)
            }
        }
        switch outcome {
        case .verified(let account, let id): return (account, id)
        case .unknownChallenge: throw APIError.unknownChallenge
        case .unknownCredential: throw APIError.unknownCredential
        case .rejected(.reject(let reason)): throw APIError(reason)
        case .rejected: throw APIError.accountDisabled
        }
    }

    /// Verifies a login response; the login, and a refusal when the response names a passkey Latchkey
    /// knows, are audited as coming from `origin`.
    ///
    /// Its span, `ceremony.login`, is opened here and the login run by a call with `traced: false`; off, the
    /// login runs in this call itself (no frame more than before there were spans).
    func verifyLogin(
        _ credential: AuthenticationResponseJSON, origin: AuditOrigin, traced: Bool = true
    ) async throws -> (token: SessionToken, account: AccountRecord) {
        if traced, spans.isOn {
            return try await spans.span("ceremony.login") { span in
                span?.attributes["latchkey.ceremony"] = "login"
                return try await verifyLogin(credential, origin: origin, traced: false)
            }
        }
        let (challenge, _) = try Self.challenge(in: credential.response.clientDataJSON, ceremony: .authentication)
        guard let ceremony = sealer.open(challenge, now: now()), ceremony.kind == .login else { throw failed(APIError.unknownChallenge) }
        guard let credentialId = Base64URL.decode(credential.rawId), !credentialId.isEmpty else {
            throw failed(APIError(WebAuthnError(.malformedCredential(field: "rawId", reason: "not base64url"), in: .authentication)))
        }
        // Made up front so that the decision inside the transaction stays a pure function of what it reads.
        let token = SessionToken.generate()
        let used = UsedChallenge(digest: ChallengeSealer.digest(challenge), expiresAt: ceremony.expiresAt)
        // The decision runs inside the unit of work, on SQLite in the commit group leader's task (another
        // request's, maybe): its span names this ceremony's as its parent.
        let ceremonySpan = spans.context
        let outcome = try await store.ceremonies.finishLogin(challenge: used, credentialId: credentialId) { [spans] record, account in
            if account.disabledAt != nil { return .accountDisabled }
            do throws(WebAuthnError) {
                let stored = try StoredCredential(
                    id: record.id, publicKeyCOSE: record.publicKey, signCount: record.signCount,
                    backupEligible: record.backupEligible, userHandle: account.userHandle)
                let result = try spans.span("webauthn.verify", parent: ceremonySpan) { span throws(WebAuthnError) in
                    span?.attributes["webauthn.ceremony"] = "authentication"
                    do throws(WebAuthnError) {
                        return try AuthenticationVerifier(relyingParty: relyingParty).verify(
                            credential, expectedChallenge: challenge, storedCredential: stored)
                    } catch {
                        span?.attributes["webauthn.rule"] = error.code
                        throw error
                    }
                }
                let session = sessions.session(for: token, accountId: account.id, credentialId: record.id, userVerified: result.userVerified)
                let person = origin.acting(as: "person")
                var events = [person.event(
                    .loginSucceeded, at: session.createdAt, account: account.id, credential: record.id,
                    detail: ["userVerified": .flag(result.userVerified)])]
                if result.possibleClone {
                    events.append(person.event(.possibleClone, at: session.createdAt, account: account.id, credential: record.id, detail: [
                        "storedSignCount": .number(Int(record.signCount)), "receivedSignCount": .number(Int(result.signCount)),
                    ]))
                }
                if result.counterReset {
                    events.append(person.event(.counterReset, at: session.createdAt, account: account.id, credential: record.id, detail: [
                        "storedSignCount": .number(Int(record.signCount)),
                    ]))
                }
                if result.backupState != record.backupState {
                    events.append(person.event(
                        .backupStateChanged, at: session.createdAt, account: account.id, credential: record.id,
                        detail: ["backedUp": .flag(result.backupState)]))
                }
                return .accept(LoginWrites(
                    signCount: result.signCount, backupState: result.backupState, userVerified: result.userVerified,
                    session: session, possibleClone: result.possibleClone, backupStateChanged: result.backupState != record.backupState,
                    counterReset: result.counterReset, events: events))
            } catch {
                return .reject(error)
            }
        }
        // The storage's outcome in the API's terms: the one place a login's end becomes an HTTP answer.
        switch outcome {
        case .completed(let account, let writes):
            metrics.succeeded(.login)
            if writes.possibleClone { metrics.possibleClone() }
            if writes.counterReset { metrics.counterReset() }
            if writes.backupStateChanged { metrics.backupStateChanged(nowBackedUp: writes.backupState) }
            return (token, account)
        case .unknownChallenge:
            throw failed(APIError.unknownChallenge)
        case .unknownCredential:
            throw failed(APIError.unknownCredential)
        case .rejected(let reason, let accountId):
            try await refused(accountId: accountId, credentialId: credentialId, code: reason.code, step: reason.step, origin: origin)
            throw failed(APIError(reason))
        case .signCountMoved(let accountId):
            try await refused(accountId: accountId, credentialId: credentialId, code: ErrorCode.signCountRegression.rawValue, step: "§7.2 step 23", origin: origin)
            throw failed(APIError(.signCountRegression, "§7.2 step 23: the signature counter changed during this login; possible cloned authenticator."))
        case .accountDisabled(let accountId):
            try await refused(accountId: accountId, credentialId: credentialId, code: ErrorCode.accountDisabled.rawValue, step: nil, origin: origin)
            throw failed(APIError.accountDisabled)
        }
    }

    /// Audits a refused login with a passkey Latchkey knows (a refusal naming an unknown one belongs to
    /// no account, and is only counted): within `Store.refusedLoginsPerHour` per account.
    private func refused(accountId: String, credentialId: [UInt8], code: String, step: String?, origin: AuditOrigin) async throws {
        var detail: AuditDetail = ["code": .text(code)]
        if let step { detail.members.append(("step", .text(step))) }
        try await store.recordRefusedLogin(origin.acting(as: "anonymous").event(
            .loginRefused, at: now(), account: accountId, credential: credentialId, detail: detail))
    }

    /// Counts a failed login by its reason and hands the error back to throw.
    private func failed(_ error: APIError) -> APIError {
        metrics.failed(.login, reason: error.code)
        return error
    }

    /// The challenge inside clientDataJSON (how the pending ceremony is found) and the origin it names
    /// (checked by the verifier; recorded with a new passkey).
    private static func challenge(in clientDataJSON: String, ceremony: Ceremony) throws -> (challenge: [UInt8], origin: String) {
        do {
            guard let bytes = Base64URL.decode(clientDataJSON) else {
                throw WebAuthnError(.malformedCredential(field: "response.clientDataJSON", reason: "not base64url"), in: ceremony)
            }
            let clientData = try CollectedClientData(bytes: bytes)
            guard let challenge = Base64URL.decode(clientData.challenge), !challenge.isEmpty else {
                throw WebAuthnError(.challengeMismatch, in: ceremony)
            }
            return (challenge, clientData.origin)
        } catch let error as WebAuthnError {
            let located = error.ceremony == nil ? WebAuthnError(error.rule, in: ceremony) : error
            throw APIError(located)
        }
    }
}
