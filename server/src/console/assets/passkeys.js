// Passkeys in the console (served as a file: the Content-Security-Policy allows no inline script).
// A form marked data-passkey ("register" or "sign-in") asks the console for the options
// (data-options, a POST with the form's CSRF token), hands them to the browser's WebAuthn through
// @simplewebauthn/browser, puts the answer in the form's hidden "response" field and submits the
// form: the console verifies it and answers with a page, as for any form.
;(function () {
  'use strict'
  var lib = window.SimpleWebAuthnBrowser

  function explain(err) {
    var name = err && err.name
    if (name === 'NotAllowedError') return 'The passkey prompt was closed or timed out, so nothing was done. Try again when ready.'
    if (name === 'InvalidStateError') return 'This device already holds a passkey for you here: use it to sign in, or remove it below first.'
    if (name === 'SecurityError') return 'This browser refused passkeys at this address. Open the console at the address it was configured with (CONSOLE_URL): a host name such as localhost, not an IP address.'
    if (name === 'AbortError') return 'The passkey prompt was cancelled, so nothing was done.'
    return (err && err.message) || 'The passkey could not be used. Reload the page and try again.'
  }

  function setUp(form) {
    var status = document.getElementById(form.getAttribute('data-status'))
    var button = form.querySelector('button[type="submit"]')
    function say(text) {
      if (status) status.textContent = text
    }
    if (!lib || !lib.browserSupportsWebAuthn()) {
      say('This browser cannot use passkeys (it has no WebAuthn). Use a current browser, or sign in with a link.')
      button.disabled = true
      return
    }
    button.disabled = false
    form.addEventListener('submit', function (event) {
      event.preventDefault()
      button.disabled = true
      say('Waiting for your passkey\u2026')
      var body = new URLSearchParams({ csrf: form.elements.csrf.value })
      fetch(form.getAttribute('data-options'), {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: body.toString(),
      })
        .then(function (res) {
          return res.json().then(
            function (data) { return { res: res, data: data } },
            function () { return { res: res, data: null } },
          )
        })
        .then(function (got) {
          if (!got.res.ok || !got.data || !got.data.options) {
            throw new Error((got.data && got.data.message) || 'This page is out of date or your session ended (status ' + got.res.status + '). Reload the page and try again.')
          }
          var ask = form.getAttribute('data-passkey') === 'register' ? lib.startRegistration : lib.startAuthentication
          return ask({ optionsJSON: got.data.options })
        })
        .then(function (answer) {
          form.elements.response.value = JSON.stringify(answer)
          say('Checking\u2026')
          form.submit()
        })
        .catch(function (err) {
          say(explain(err))
          button.disabled = false
        })
    })
  }

  document.querySelectorAll('form[data-passkey]').forEach(setUp)
})()
