/**
 * Asks before destroying data (deleting a run, deleting the store's data), in a modal <dialog> of
 * the page rather than window.confirm, so the question can say exactly what goes. Resolves true
 * only when the user presses the named button.
 */
import { h } from './dom.js';

export function confirmAction(question: string, detail: string, action: string): Promise<boolean> {
  return new Promise((resolve) => {
    const yes = h('button', { type: 'button', class: 'danger', name: 'confirm' }, action);
    const no = h('button', { type: 'button', class: 'secondary', name: 'cancel' }, 'Cancel');
    const dialog = h('dialog', { class: 'confirm' }, h('h2', undefined, question), h('p', undefined, detail), h('div', { class: 'actions' }, no, yes));
    const finish = (answer: boolean): void => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    yes.addEventListener('click', () => finish(true));
    no.addEventListener('click', () => finish(false));
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      finish(false);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    no.focus();
  });
}
