// Small progressive enhancements; every page works without this file.
// The language selector submits itself when changed, so its button can stay hidden for mouse users.
document.addEventListener("change", (event) => {
  const select = event.target.closest(".lang-switch select");
  if (select) select.form.requestSubmit();
});

// A button with data-confirm asks first (the resign button); no inline handler, as the
// Content-Security-Policy forbids them.
document.addEventListener("submit", (event) => {
  const button = event.submitter;
  if (button && button.dataset.confirm && !window.confirm(button.dataset.confirm)) {
    event.preventDefault();
  }
});
