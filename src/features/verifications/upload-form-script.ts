import { html } from '../../core/text/html.js';

/**
 * The upload form's one script (issue 37: one copy, served to the web app's upload page and to a
 * request's provider page, whose forms are the same markup: `#upload-form` with `#image`, `#raw`,
 * `#form-error` and the `#upload` progress box). Constant: nothing is interpolated, the size limit,
 * the RAW extensions and the progress words' sizes are data attributes of the form. It only adds
 * to what the native form does:
 * - drag and drop, where the page has a `#drop-zone`: files dropped anywhere on the page go to the
 *   form's inputs (a RAW extension to the RAW input, anything else to the photo), said in a status
 *   line;
 * - the form is sent with XMLHttpRequest so a progress bar follows a large RAW (fetch cannot
 *   report upload progress), the bytes sent said too where the form has `data-progress-sizes`.
 *   The POST answers 303 to the verification's (or the submission's) page, which the browser
 *   then opens. A refusal is the page again: its `#form-error` words (or an error page's heading
 *   and first paragraph) are shown above the form.
 * Without script the form posts natively and the server answers the same.
 */
export const UPLOAD_FORM_SCRIPT = html`
(function () {
  var form = document.getElementById('upload-form');
  if (!form || !window.XMLHttpRequest || !window.FormData) return;
  var errorBox = document.getElementById('form-error');
  var image = document.getElementById('image');
  var raw = document.getElementById('raw');
  var zone = document.getElementById('drop-zone');
  var hint = document.getElementById('drop-hint');
  var dropWords = document.getElementById('drop-words');
  var rawExtensions = (form.getAttribute('data-raw-extensions') || '').split(' ');
  function showError(text) {
    errorBox.textContent = text;
    errorBox.hidden = false;
    errorBox.focus();
  }
  // The answer's words by pattern, not by parsing it as a document (that would apply its
  // inline style, which this page's CSP refuses): the markup escapes only these five characters.
  function text(markup) {
    return markup.replace(/<[^>]*>/g, '').replace(/&(lt|gt|quot|#39|amp);/g, function (m, name) {
      return { lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' }[name];
    }).replace(/\\s+/g, ' ').trim();
  }
  function messageOf(responseText) {
    var own = /<p id="form-error"[^>]*>([\\s\\S]*?)<\\/p>/.exec(responseText);
    if (own && text(own[1])) return text(own[1]);
    var page = /<h1[^>]*>([\\s\\S]*?)<\\/h1>\\s*<p>([\\s\\S]*?)<\\/p>/.exec(responseText);
    if (page) return text(page[1]) + ': ' + text(page[2]);
    return 'The upload was not accepted. Please try again.';
  }
  function isRaw(file) {
    var dot = file.name.lastIndexOf('.');
    return dot > 0 && rawExtensions.indexOf(file.name.slice(dot + 1).toLowerCase()) >= 0;
  }
  function put(input, file) {
    var list = new DataTransfer();
    list.items.add(file);
    input.files = list.files;
  }
  function chosen() {
    var parts = [];
    if (image.files && image.files[0]) parts.push('photo ' + image.files[0].name);
    if (raw.files && raw.files[0]) parts.push('RAW ' + raw.files[0].name);
    return parts.length ? 'Chosen: ' + parts.join(', ') + '.' : '';
  }

  if (window.DataTransfer && zone) {
    // The zone's border and hint only where a drop works: without script the inputs alone.
    hint.hidden = false;
    zone.classList.add('live');
    var depth = 0;
    document.addEventListener('dragenter', function (event) {
      event.preventDefault();
      depth++;
      zone.classList.add('dragging');
    });
    document.addEventListener('dragover', function (event) {
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
    });
    document.addEventListener('dragleave', function () {
      depth = Math.max(0, depth - 1);
      if (depth === 0) zone.classList.remove('dragging');
    });
    document.addEventListener('drop', function (event) {
      event.preventDefault();
      depth = 0;
      zone.classList.remove('dragging');
      var files = event.dataTransfer ? event.dataTransfer.files : [];
      var ignored = 0;
      var rawTaken = false;
      var imageTaken = false;
      for (var i = 0; i < files.length; i++) {
        if (isRaw(files[i]) && !rawTaken) { put(raw, files[i]); rawTaken = true; }
        else if (!isRaw(files[i]) && !imageTaken) { put(image, files[i]); imageTaken = true; }
        else ignored++;
      }
      dropWords.textContent = chosen() + (ignored ? ' ' + ignored + ' more file(s) left out: one photo and one RAW at a time.' : '');
    });
    image.addEventListener('change', function () { dropWords.textContent = chosen(); });
    raw.addEventListener('change', function () { dropWords.textContent = chosen(); });
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    if (!image.files || !image.files[0]) {
      showError('Choose the photo to verify (the RAW file is optional).');
      image.focus();
      return;
    }
    var max = Number(form.getAttribute('data-max-bytes'));
    var inputs = [image, raw];
    for (var i = 0; i < inputs.length; i++) {
      var file = inputs[i].files && inputs[i].files[0];
      if (file && max && file.size > max) {
        showError(file.name + ' is larger than the ' + form.getAttribute('data-max-words') + ' the service accepts.');
        return;
      }
    }
    var button = form.querySelector('button[type=submit]');
    var upload = document.getElementById('upload');
    var bar = document.getElementById('upload-progress');
    var words = document.getElementById('upload-words');
    var megabytes = function (n) { return (n / 1048576).toFixed(1) + ' MB'; };
    errorBox.hidden = true;
    button.disabled = true;
    upload.hidden = false;
    bar.value = 0;
    words.textContent = 'Starting the upload…';
    var xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.upload.addEventListener('progress', function (e) {
      if (!e.lengthComputable) return;
      var percent = Math.floor((e.loaded / e.total) * 100);
      bar.value = percent;
      var sizes = form.hasAttribute('data-progress-sizes') ? ' (' + megabytes(e.loaded) + ' of ' + megabytes(e.total) + ')' : '';
      words.textContent = percent < 100 ? percent + ' % sent' + sizes : 'Sent. Checking the files…';
    });
    xhr.addEventListener('load', function () {
      if (xhr.status >= 200 && xhr.status < 300 && xhr.responseURL && xhr.responseURL !== form.action) {
        words.textContent = 'Accepted. Opening its page…';
        window.location.assign(xhr.responseURL);
        return;
      }
      upload.hidden = true;
      button.disabled = false;
      showError(messageOf(xhr.responseText));
    });
    xhr.addEventListener('error', function () {
      upload.hidden = true;
      button.disabled = false;
      showError('The upload did not reach the service, or was cut off (a file over the ' + form.getAttribute('data-max-words') + ' limit is). Check your connection and the files, and try again.');
    });
    xhr.send(new FormData(form));
  });
})();
`;
