// Small progressive enhancements; every page works without this file.
// (The language selector does not submit itself: its "Change" button works without JavaScript,
// and a select that also submitted on change did the same thing twice.)

// A button with data-confirm asks first (the resign button); no inline handler, as the
// Content-Security-Policy forbids them.
document.addEventListener("submit", (event) => {
  const button = event.submitter;
  if (button && button.dataset.confirm && !window.confirm(button.dataset.confirm)) {
    event.preventDefault();
  }
});
