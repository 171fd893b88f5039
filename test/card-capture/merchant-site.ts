import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A merchant's website on 127.0.0.1 (another origin than Coffer's): a checkout page built the
 * way Spreedly's iFrame guide shows it, with only the script's src pointing at Coffer; a
 * transparent-redirect form; and the page the redirect lands on.
 */

export interface CheckoutSettings {
  cofferUrl: string;
  environmentKey: string;
  /** Extra options of Spreedly.init (the enhanced-security fields). */
  initOptions?: Record<string, string>;
}

export interface MerchantSite {
  origin: string;
  settings: CheckoutSettings;
  close(): Promise<void>;
}

function checkoutPage(settings: CheckoutSettings): string {
  const init = JSON.stringify({ numberEl: 'spreedly-number', cvvEl: 'spreedly-cvv', ...settings.initOptions });
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Checkout</title>
<style>body{font:15px sans-serif;margin:24px} label{display:block;margin-top:10px} .field{width:240px;height:34px;border:1px solid #888;border-radius:4px}</style>
</head>
<body>
<h1>Checkout</h1>
<form id="payment-form" onsubmit="submitPaymentForm(); return false;">
  <input type="hidden" name="payment_method_token" id="payment_method_token">
  <label for="full_name">Name on card</label>
  <input type="text" id="full_name" name="full_name">
  <label>Card number</label>
  <div id="spreedly-number" class="field"></div>
  <label for="month">Expiry (MM / YYYY)</label>
  <input type="text" id="month" name="month" maxlength="2" size="2"> / <input type="text" id="year" name="year" maxlength="4" size="4">
  <label>CVV</label>
  <div id="spreedly-cvv" class="field" style="width:70px"></div>
  <p><input id="submit-button" type="submit" value="Pay now" disabled></p>
  <p id="message"></p>
</form>
<!-- Recording for the test: every event and every message this page receives. -->
<script>window.recorded = []; window.received = []; addEventListener('message', function (e) { window.received.push(JSON.stringify(e.data)); });</script>
<script src="${settings.cofferUrl}/iframe/iframe-v1.min.js"></script>
<script>
  Spreedly.init(${JSON.stringify(settings.environmentKey)}, ${init});
  Spreedly.on('ready', function () {
    window.recorded.push(['ready']);
    Spreedly.setPlaceholder('number', 'Card number');
    Spreedly.setPlaceholder('cvv', 'CVV');
    Spreedly.setStyle('number', 'font-size: 18px; color: #114;');
    document.getElementById('submit-button').disabled = false;
  });
  Spreedly.on('fieldEvent', function (name, type, activeEl, inputProperties) {
    window.recorded.push(['fieldEvent', name, type, activeEl, inputProperties]);
  });
  Spreedly.on('paymentMethod', function (token, pmData) {
    window.recorded.push(['paymentMethod', token, pmData]);
    document.getElementById('payment_method_token').value = token;
    document.getElementById('message').textContent = 'Card saved: ' + pmData.number;
  });
  Spreedly.on('errors', function (errors) {
    window.recorded.push(['errors', errors]);
    document.getElementById('message').textContent = errors.map(function (e) { return e.message; }).join(' ');
  });
  Spreedly.on('validation', function (inputProperties) { window.recorded.push(['validation', inputProperties]); });
  Spreedly.on('consoleError', function (error) { window.recorded.push(['consoleError', error]); });
  function submitPaymentForm() {
    Spreedly.tokenizeCreditCard({
      full_name: document.getElementById('full_name').value,
      month: document.getElementById('month').value,
      year: document.getElementById('year').value
    });
  }
</script>
</body>
</html>`;
}

function redirectForm(settings: CheckoutSettings, landing: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Pay by card</title></head>
<body style="font:15px sans-serif;margin:24px">
<h1>Pay by card</h1>
<form id="redirect-form" action="${settings.cofferUrl}/v1/payment_methods" method="POST">
  <input type="hidden" name="environment_key" value="${settings.environmentKey}">
  <input type="hidden" name="redirect_url" value="${landing}">
  <p><label for="first_name">First name</label> <input id="first_name" name="credit_card[first_name]"></p>
  <p><label for="last_name">Last name</label> <input id="last_name" name="credit_card[last_name]"></p>
  <p><label for="number">Card number</label> <input id="number" name="credit_card[number]" autocomplete="cc-number"></p>
  <p><label for="cvv">CVV</label> <input id="cvv" name="credit_card[verification_value]"></p>
  <p><label for="month">Month</label> <input id="month" name="credit_card[month]"> <label for="year">Year</label> <input id="year" name="credit_card[year]"></p>
  <p><button id="pay" type="submit">Pay</button></p>
</form>
</body></html>`;
}

/** Serves the merchant's pages on a free port of 127.0.0.1. */
export async function startMerchantSite(settings: CheckoutSettings): Promise<MerchantSite> {
  const site = { settings } as MerchantSite;
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    response.setHeader('Content-Type', 'text/html; charset=utf-8');
    if (url.pathname === '/checkout') return response.end(checkoutPage(site.settings));
    if (url.pathname === '/pay-by-form') return response.end(redirectForm(site.settings, `${site.origin}/landing`));
    if (url.pathname === '/landing') return response.end(`<!doctype html><title>Thank you</title><h1>Back at the shop</h1><p id="query">${url.search.replace(/[<>&]/g, '')}</p>`);
    response.statusCode = 404;
    response.end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site.close = () => new Promise((resolve) => server.close(() => resolve()));
  return site;
}
