// Folio's passkeys: the one script of the account and sign-in pages.
// It runs the browser's WebAuthn ceremonies (navigator.credentials) with
// options from Folio and posts the authenticator's answer back; every
// check is Folio's. The JSON carries binary values as base64url.
"use strict";

(() => {
  const toBuffer = (s) => {
    const b64 = s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4);
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  };
  const toBase64url = (buf) => {
    const bytes = new Uint8Array(buf);
    let bin = "";
    for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };

  const post = async (path, body) => {
    const res = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body || {}),
    });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(data.error || res.statusText);
    return data;
  };

  const descriptors = (list) => (list || []).map((c) => ({ ...c, id: toBuffer(c.id) }));

  const credentialJSON = (cred) => {
    const r = cred.response;
    const response = { clientDataJSON: toBase64url(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = toBase64url(r.attestationObject);
      if (r.getTransports) response.transports = r.getTransports();
    } else {
      response.authenticatorData = toBase64url(r.authenticatorData);
      response.signature = toBase64url(r.signature);
      if (r.userHandle) response.userHandle = toBase64url(r.userHandle);
    }
    return {
      id: cred.id,
      rawId: toBase64url(cred.rawId),
      type: cred.type,
      authenticatorAttachment: cred.authenticatorAttachment || undefined,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      response,
    };
  };

  const register = async () => {
    const options = await post("/account/passkeys/options");
    const pk = options.publicKey;
    pk.challenge = toBuffer(pk.challenge);
    pk.user.id = toBuffer(pk.user.id);
    pk.excludeCredentials = descriptors(pk.excludeCredentials);
    const cred = await navigator.credentials.create({ publicKey: pk });
    const name = document.getElementById("passkey-name");
    await post("/account/passkeys", { name: name ? name.value : "", credential: credentialJSON(cred) });
    location.assign("/account");
  };

  const signIn = async (button) => {
    const options = await post("/sign-in/passkey/options");
    const pk = options.publicKey;
    pk.challenge = toBuffer(pk.challenge);
    pk.allowCredentials = descriptors(pk.allowCredentials);
    const cred = await navigator.credentials.get({ publicKey: pk });
    const done = await post("/sign-in/passkey", { next: button.dataset.next || "", credential: credentialJSON(cred) });
    location.assign(done.next);
  };

  const start = () => {
    if (!window.PublicKeyCredential || !navigator.credentials) return;
    const error = document.getElementById("passkey-error");
    for (const button of document.querySelectorAll("button[data-passkey]")) {
      button.hidden = false;
      // The add form (hidden without this script) never posts: its
      // button, or Enter in its name field, runs the ceremony instead.
      const form = button.closest("form");
      if (form) {
        form.hidden = false;
        form.addEventListener("submit", (e) => e.preventDefault());
      }
      button.addEventListener("click", async () => {
        button.disabled = true;
        if (error) error.hidden = true;
        try {
          await (button.dataset.passkey === "register" ? register() : signIn(button));
        } catch (e) {
          if (error) {
            error.textContent = e && e.name === "NotAllowedError" ? "The passkey prompt was cancelled or timed out." : String((e && e.message) || e);
            error.hidden = false;
          }
        } finally {
          button.disabled = false;
        }
      });
    }
  };

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
